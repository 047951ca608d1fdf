/** Inventory counts (G18): in_progress -> completed, valued at the buyer's current prices. */
import type { DomainEnv } from './env.js';
import { clone, newId, nowIso, raiseToBuyer, stampAfter } from './env.js';
import { conflict, notFound } from './errors.js';
import { pricesFor } from './lookup.js';
import { cents, lineTotal, milli, money, sum } from './money.js';
import type { InventoryCount, InventoryCountLine } from './types.js';

/** Starts a count of the given SKUs with their counted quantities. */
export function startInventoryCount(
  env: DomainEnv,
  branchId: string,
  counted: readonly { sku: string; quantity: string }[],
): InventoryCount {
  if (!env.state.branches[branchId]) throw notFound('Branch', branchId);
  const prices = pricesFor(env);
  const lines: InventoryCountLine[] = counted.map(({ sku, quantity }) => {
    const product = env.state.products[sku];
    if (!product) throw notFound('Product', sku);
    const unitCost = prices.get(sku) ?? '0.00';
    return {
      product_id: `prd_${sku}`,
      sku,
      name: product.name,
      quantity,
      unit: product.unit,
      unit_cost: unitCost,
      value: money(lineTotal(cents(unitCost), milli(quantity))),
    };
  });
  const now = nowIso(env);
  const count: InventoryCount = {
    id: newId(env, 'inv_cnt'),
    branch_id: branchId,
    counted_at: now,
    status: 'in_progress',
    total_value: money(sum(lines.map((line) => cents(line.value)))),
    lines,
    updated_at: now,
  };
  env.state.inventoryCounts[count.id] = count;
  return count;
}

export function completeInventoryCount(env: DomainEnv, countId: string): InventoryCount {
  const count = env.state.inventoryCounts[countId];
  if (!count) throw notFound('Inventory count', countId);
  if (count.status === 'completed') throw conflict(`Inventory count ${countId} is already completed.`);
  count.status = 'completed';
  count.updated_at = stampAfter(env, count.updated_at);
  raiseToBuyer(env, 'inventory_count.completed', {
    ...clone(count),
    object: 'inventory_count',
    id: count.id,
  });
  return count;
}

/** Lines only with expand=lines in lists; a single count always has them. */
export function inventoryView(count: InventoryCount, withLines: boolean): Record<string, unknown> {
  const view: Record<string, unknown> = { ...clone(count) };
  if (!withLines) delete view['lines'];
  return view;
}
