/** Neutral sales records (from SQL or CSV) to API bodies, each with its business key and content version. */
import type { ZReportInputBody, ItemSaleInputBody } from '../../client/index.js';
import type { ItemSaleRecord, ZReportRecord } from '../../connector-contract/index.js';
import { contentHash } from '../../engine/index.js';

export type SalesKind = 'z_report' | 'item_sale';

export interface SalesItem<B> {
  readonly kind: SalesKind;
  /** branch_id/z_number, or branch_id/z_number/line_number: the API's item key, and the dead letter's key. */
  readonly key: string;
  readonly body: B;
  readonly version: string;
}

export type ZReportItem = SalesItem<ZReportInputBody>;
export type ItemSaleItem = SalesItem<ItemSaleInputBody>;

const Z_MONEY = [
  'dine_in_total',
  'take_away_total',
  'tips',
  'cash_total',
  'card_total',
  'cheque_total',
  'discounts_total',
] as const;
const Z_COUNTS = ['orders_count', 'dine_in_count', 'take_away_count'] as const;

/** "12.5" -> "12.50": sources often drop trailing zeros. Anything else is sent as given for the API to judge. */
export function money(value: string): string {
  const match = /^(-?\d+)(?:\.(\d{1,2}))?$/.exec(value.trim());
  if (!match) return value;
  return `${match[1] ?? '0'}.${(match[2] ?? '').padEnd(2, '0')}`;
}

function count(value: string | number): number | string {
  if (typeof value === 'number') return value;
  return /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
}

function present(value: string | number | null | undefined): value is string | number {
  return value !== null && value !== undefined && value !== '';
}

export function zReportItem(record: ZReportRecord, branchId: string): ZReportItem {
  const body: Record<string, unknown> = {
    branch_id: branchId,
    z_number: record.zNumber,
    closed_at: record.closedAt,
    total_before_vat: money(record.totalBeforeVat),
  };
  const description = record.fields['description'];
  if (present(description)) body['description'] = String(description);
  for (const name of Z_MONEY) {
    const value = record.fields[name];
    if (present(value)) body[name] = money(String(value));
  }
  for (const name of Z_COUNTS) {
    const value = record.fields[name];
    if (present(value)) body[name] = count(value);
  }
  const typed = body as unknown as ZReportInputBody;
  return { kind: 'z_report', key: `${branchId}/${record.zNumber}`, body: typed, version: contentHash(typed) };
}

/**
 * Item sales without a line number get one: the API keys item sales by branch_id/z_number/line_number, and only
 * with a key does re-sending a batch update the same lines instead of adding them again. Numbers are given in
 * input order within each Z-report of the batch, after the highest number the source already used there, and
 * before the branch is resolved, so a line kept as a dead letter keeps its number.
 */
export function numberLines(records: readonly ItemSaleRecord[]): ItemSaleRecord[] {
  const highest = new Map<string, number>();
  const zOf = (record: ItemSaleRecord) => `${record.branchCode}/${record.zNumber}`;
  for (const record of records) {
    if (record.lineNumber !== null)
      highest.set(zOf(record), Math.max(highest.get(zOf(record)) ?? 0, record.lineNumber));
  }
  return records.map((record) => {
    if (record.lineNumber !== null) return record;
    const lineNumber = (highest.get(zOf(record)) ?? 0) + 1;
    highest.set(zOf(record), lineNumber);
    return { ...record, lineNumber };
  });
}

export function itemSaleItem(record: ItemSaleRecord, branchId: string): ItemSaleItem {
  const body: Record<string, unknown> = {
    branch_id: branchId,
    z_number: record.zNumber,
    ...(record.lineNumber === null ? {} : { line_number: record.lineNumber }),
    value_date: record.valueDate,
    item_code: record.itemCode,
    item_name: record.itemName,
    quantity: record.quantity,
    unit_price: money(record.unitPrice),
    total: money(record.total),
  };
  for (const name of ['main_category', 'sub_category'] as const) {
    const value = record.fields[name];
    if (present(value)) body[name] = String(value);
  }
  const typed = body as unknown as ItemSaleInputBody;
  const key = `${branchId}/${record.zNumber}/${record.lineNumber ?? ''}`;
  return { kind: 'item_sale', key, body: typed, version: contentHash(typed) };
}
