/**
 * Splitting large item arrays to the contract's batch limits and merging the batch responses back, so each
 * result's `index` still points into the caller's original array.
 */
import type { BatchResponse } from '../contract/index.js';
import { ClientConfigError, ValidationApiError } from './errors.js';
import { parsers } from './parsers.js';
import type { ClientContext } from './context.js';
import { requestResource } from './context.js';
import type { CallOptions, RequestSpec } from './transport.js';

export const BATCH_LIMITS = {
  products: 500,
  priceEntries: 500,
  zReports: 500,
  itemSales: 5000,
  journalLinesPerExport: 5000,
} as const;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('chunk size must be a positive integer');
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

export function emptyBatchResponse(): BatchResponse {
  return { summary: { total: 0, succeeded: 0, failed: 0, skipped: 0 }, items: [] };
}

/** Merges per-chunk responses; `offsets[i]` is the position of chunk i's first item in the original array. */
export function mergeBatchResponses(
  responses: readonly BatchResponse[],
  offsets: readonly number[],
): BatchResponse {
  const merged = emptyBatchResponse();
  responses.forEach((response, chunkIndex) => {
    const offset = offsets[chunkIndex] ?? 0;
    merged.summary.total += response.summary.total;
    merged.summary.succeeded += response.summary.succeeded;
    merged.summary.failed += response.summary.failed;
    merged.summary.skipped += response.summary.skipped;
    for (const item of response.items) merged.items.push({ ...item, index: item.index + offset });
  });
  merged.items.sort((a, b) => a.index - b.index);
  return merged;
}

/** Sends chunks one after another (the rate limiter paces them) and merges the answers. */
export async function sendInBatches<T>(
  items: readonly T[],
  size: number,
  send: (chunkItems: T[], chunkIndex: number, chunkCount: number) => Promise<BatchResponse>,
): Promise<BatchResponse> {
  const chunks = chunk(items, size);
  const responses: BatchResponse[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const [chunkIndex, chunkItems] of chunks.entries()) {
    responses.push(await send(chunkItems, chunkIndex, chunks.length));
    offsets.push(offset);
    offset += chunkItems.length;
  }
  return mergeBatchResponses(responses, offsets);
}

/**
 * One batch call. A 422 whose body is itself a batch response (every item failed) is returned as that
 * response: the per-item results are the answer, not an exception.
 */
export async function requestBatch(ctx: ClientContext, spec: RequestSpec): Promise<BatchResponse> {
  try {
    return await requestResource(ctx, spec, parsers.batchResponse);
  } catch (error) {
    if (error instanceof ValidationApiError) {
      const parsed = parsers.batchResponse.parse(error.body);
      if (parsed.ok) return parsed.value;
    }
    throw error;
  }
}

export function assertWithinLimit(count: number, limit: number, what: string): void {
  if (count > limit) {
    throw new ClientConfigError(
      'batch_too_large',
      `${what}: ${count} items exceed the limit of ${limit} per call`,
    );
  }
}

/** Per-chunk call options: when split, a caller's idempotency key gets the chunk index appended. */
export function chunkCall(
  options: CallOptions | undefined,
  chunkIndex: number,
  chunkCount: number,
): CallOptions | undefined {
  if (options?.idempotencyKey === undefined || chunkCount === 1) return options;
  return { ...options, idempotencyKey: `${options.idempotencyKey}:${chunkIndex}` };
}
