/** POS Z-reports (key branch_id/z_number) and item sales (key branch_id/z_number/line_number) upserts. */
import { batchResponse, type BatchItemResult, type BatchResponse } from './catalog.js';
import type { DomainEnv } from './env.js';
import { newId, nowIso, stampAfter } from './env.js';
import { ItemSaleItem, ZReportItem } from './requests.js';
import type { ItemSale, ZReport } from './types.js';
import { parseItem } from './validate.js';

function stringField(raw: unknown, name: string): string {
  const value = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

type Defined<T> = { [K in keyof T]: Exclude<T[K], undefined> };
/** Drops keys whose value is undefined (the stored records are plain JSON). */
const withoutUndefined = <T extends object>(value: T): Defined<T> =>
  JSON.parse(JSON.stringify(value)) as Defined<T>;

export function upsertZReports(env: DomainEnv, items: readonly unknown[]): BatchResponse {
  const byKey = new Map(
    Object.values(env.state.zReports).map((report) => [`${report.branch_id}/${report.z_number}`, report]),
  );
  const results = items.map((raw, index): BatchItemResult => {
    const key = `${stringField(raw, 'branch_id')}/${stringField(raw, 'z_number')}`;
    const parsed = parseItem(ZReportItem, raw, `items[${index}]`);
    if (!parsed.ok) return { index, key, status: 'failed', errors: parsed.errors };
    if (!env.state.branches[parsed.value.branch_id]) {
      return {
        index,
        key,
        status: 'failed',
        errors: [
          {
            field: `items[${index}].branch_id`,
            code: 'not_found',
            message: `Branch ${parsed.value.branch_id} was not found.`,
          },
        ],
      };
    }
    const existing = byKey.get(key);
    const fields = withoutUndefined(parsed.value);
    if (existing) {
      if (JSON.stringify({ ...existing, ...fields }) === JSON.stringify(existing))
        return { index, key, status: 'skipped', id: existing.id };
      Object.assign(existing, fields, { updated_at: stampAfter(env, existing.updated_at) });
      return { index, key, status: 'updated', id: existing.id };
    }
    const now = nowIso(env);
    const report: ZReport = { id: newId(env, 'zr'), ...fields, created_at: now, updated_at: now };
    env.state.zReports[report.id] = report;
    byKey.set(key, report);
    return { index, key, status: 'created', id: report.id };
  });
  return batchResponse(results);
}

export function upsertItemSales(env: DomainEnv, items: readonly unknown[]): BatchResponse {
  const keyOf = (sale: Pick<ItemSale, 'branch_id' | 'z_number' | 'line_number'>) =>
    `${sale.branch_id}/${sale.z_number}/${sale.line_number ?? ''}`;
  const byKey = new Map(Object.values(env.state.itemSales).map((sale) => [keyOf(sale), sale]));
  const results = items.map((raw, index): BatchItemResult => {
    const key = `${stringField(raw, 'branch_id')}/${stringField(raw, 'z_number')}/${stringField(raw, 'line_number')}`;
    const parsed = parseItem(ItemSaleItem, raw, `items[${index}]`);
    if (!parsed.ok) return { index, key, status: 'failed', errors: parsed.errors };
    if (!env.state.branches[parsed.value.branch_id]) {
      return {
        index,
        key,
        status: 'failed',
        errors: [
          {
            field: `items[${index}].branch_id`,
            code: 'not_found',
            message: `Branch ${parsed.value.branch_id} was not found.`,
          },
        ],
      };
    }
    const fields = withoutUndefined(parsed.value);
    const existing = parsed.value.line_number === undefined ? undefined : byKey.get(key);
    if (existing) {
      if (JSON.stringify({ ...existing, ...fields }) === JSON.stringify(existing))
        return { index, key, status: 'skipped', id: existing.id };
      Object.assign(existing, fields, { updated_at: stampAfter(env, existing.updated_at) });
      return { index, key, status: 'updated', id: existing.id };
    }
    const sale: ItemSale = { id: newId(env, 'is'), ...fields, updated_at: nowIso(env) };
    env.state.itemSales[sale.id] = sale;
    byKey.set(key, sale);
    return { index, key, status: 'created', id: sale.id };
  });
  return batchResponse(results);
}
