/** Items per call the contract allows (part 8). */
export const BATCH_LIMITS = {
  products: 500,
  priceEntries: 500,
  zReports: 500,
  itemSales: 5000,
  journalLinesPerExport: 5000,
} as const;

export type BatchKind = keyof typeof BATCH_LIMITS;

export interface Batch<T> {
  /** Position of the batch, 0-based. */
  index: number;
  /** Offset of the batch's first item in the input, to map per-item results back. */
  offset: number;
  items: T[];
}

/** Splits items into batches of at most `size` (a number or a contract batch kind). */
export function toBatches<T>(items: readonly T[], size: number | BatchKind): Batch<T>[] {
  const limit = typeof size === 'number' ? size : BATCH_LIMITS[size];
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`batch size must be a positive integer, got ${limit}`);
  const batches: Batch<T>[] = [];
  for (let offset = 0; offset < items.length; offset += limit) {
    batches.push({ index: batches.length, offset, items: items.slice(offset, offset + limit) });
  }
  return batches;
}
