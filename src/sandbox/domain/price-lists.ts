/** Price lists, their prices and buyer assignments (part 4.5). */
import { batchResponse, type BatchItemResult, type BatchResponse } from './catalog.js';
import type { DomainEnv } from './env.js';
import { raiseToSupplier, stampAfter } from './env.js';
import { notFound } from './errors.js';
import { PriceEntryBody } from './requests.js';
import type { PriceEntry, PriceList } from './types.js';
import { parseItem } from './validate.js';

export function getPriceList(env: DomainEnv, priceListId: string): PriceList {
  const list = env.state.priceLists[priceListId];
  if (!list) throw notFound('Price list', priceListId);
  return list;
}

/** Upserts price entries by (sku, min_quantity, valid_from); unknown SKUs fail their item. */
export function putPrices(env: DomainEnv, priceListId: string, items: readonly unknown[]): BatchResponse {
  const list = getPriceList(env, priceListId);
  const entries = env.state.prices[priceListId] ?? [];
  env.state.prices[priceListId] = entries;
  const results = items.map((raw, index): BatchItemResult => {
    const parsed = parseItem(PriceEntryBody, raw, `items[${index}]`);
    const rawSku = typeof raw === 'object' && raw !== null ? (raw as { sku?: unknown }).sku : undefined;
    const base = typeof rawSku === 'string' ? { index, key: rawSku } : { index };
    if (!parsed.ok) return { ...base, status: 'failed', errors: parsed.errors };
    const entry = parsed.value;
    const product = env.state.products[entry.sku];
    if (!product || product.deleted_at !== null) {
      return {
        ...base,
        status: 'failed',
        errors: [
          { field: `items[${index}].sku`, code: 'not_found', message: `Product ${entry.sku} was not found.` },
        ],
      };
    }
    const stored: PriceEntry = { sku: entry.sku, price: entry.price };
    if (entry.min_quantity !== undefined) stored.min_quantity = entry.min_quantity;
    if (entry.valid_from !== undefined) stored.valid_from = entry.valid_from;
    const position = entries.findIndex(
      (candidate) =>
        candidate.sku === stored.sku &&
        candidate.min_quantity === stored.min_quantity &&
        candidate.valid_from === stored.valid_from,
    );
    if (position >= 0) {
      const same = entries[position]?.price === stored.price;
      entries[position] = stored;
      return { ...base, status: same ? 'skipped' : 'updated', id: entry.sku };
    }
    entries.push(stored);
    return { ...base, status: 'created', id: entry.sku };
  });
  if (results.some((result) => result.status === 'created' || result.status === 'updated'))
    list.updated_at = stampAfter(env, list.updated_at);
  return batchResponse(results);
}

export function assignBuyer(env: DomainEnv, priceListId: string, buyerId: string): void {
  const list = getPriceList(env, priceListId);
  const buyer = env.state.supplierBuyers[buyerId];
  if (!buyer) throw notFound('Buyer', buyerId);
  for (const other of Object.values(env.state.priceLists)) {
    if (other.id !== list.id && other.buyer_ids.includes(buyerId)) {
      other.buyer_ids = other.buyer_ids.filter((id) => id !== buyerId);
      other.updated_at = stampAfter(env, other.updated_at);
    }
  }
  if (!list.buyer_ids.includes(buyerId)) list.buyer_ids.push(buyerId);
  list.updated_at = stampAfter(env, list.updated_at);
  if (buyer.price_list_id !== list.id) {
    buyer.price_list_id = list.id;
    buyer.updated_at = stampAfter(env, buyer.updated_at);
  }
  raiseToSupplier(env, 'price_list.assigned', { object: 'price_list', id: list.id, buyer_id: buyerId });
}

export function unassignBuyer(env: DomainEnv, priceListId: string, buyerId: string): void {
  const list = getPriceList(env, priceListId);
  if (!list.buyer_ids.includes(buyerId)) throw notFound('Buyer assignment', buyerId);
  list.buyer_ids = list.buyer_ids.filter((id) => id !== buyerId);
  list.updated_at = stampAfter(env, list.updated_at);
  const buyer = env.state.supplierBuyers[buyerId];
  if (buyer && buyer.price_list_id === list.id) {
    buyer.price_list_id = null;
    buyer.updated_at = stampAfter(env, buyer.updated_at);
  }
}
