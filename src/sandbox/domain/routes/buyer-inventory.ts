/** Buyer inventory counts (4.11, G18): the list, with lines on expand=lines, and one count with its lines. */
import { INVENTORY_SCOPE } from '../../../contract/index.js';
import { inDateRange, parseDateRange } from '../../http/paging.js';
import type { RouteDef } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { notFound } from '../errors.js';
import { inventoryView } from '../inventory.js';
import { BUYER_GROUP, isDemoBuyer, ok, pageReply, requireOwner } from './common.js';

export function buyerInventoryRoutes(env: DomainEnv): RouteDef[] {
  const base = { accountType: 'buyer', group: BUYER_GROUP, minPlan: 'Pro', scope: INVENTORY_SCOPE } as const;
  return [
    {
      ...base,
      method: 'GET',
      path: '/inventory-counts',
      handle: (ctx) => {
        const range = parseDateRange(ctx.query);
        const branchId = ctx.query.get('branch_id');
        const withLines = (ctx.query.get('expand') ?? '').split(',').includes('lines');
        const counts = (isDemoBuyer(ctx) ? Object.values(env.state.inventoryCounts) : []).filter(
          (count) =>
            inDateRange(count.counted_at, range) && (branchId === null || count.branch_id === branchId),
        );
        return pageReply(env, counts, ctx.query, (count) => inventoryView(count, withLines));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/inventory-counts/:count_id',
      handle: (ctx) => {
        const id = ctx.params['count_id'] ?? '';
        requireOwner(isDemoBuyer(ctx), 'Inventory count', id);
        const count = env.state.inventoryCounts[id];
        if (!count) throw notFound('Inventory count', id);
        return ok(inventoryView(count, true));
      },
    },
  ];
}
