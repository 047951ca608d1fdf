/** Buyer sales (4.10): Z reports and item sales, listed and upserted in batches. */
import { inDateRange, parseDateRange } from '../../http/paging.js';
import type { RouteDef } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { upsertItemSales, upsertZReports } from '../sales.js';
import { BUYER_GROUP, batchItems, isDemoBuyer, ok, pageReply, requireOwner } from './common.js';

export function buyerSalesRoutes(env: DomainEnv): RouteDef[] {
  const base = { accountType: 'buyer', group: BUYER_GROUP, minPlan: 'Pro' } as const;
  const read = { ...base, method: 'GET', scope: 'buyer.sales:read' } as const;
  const write = { ...base, method: 'POST', scope: 'buyer.sales:write' } as const;
  return [
    {
      ...read,
      path: '/sales/z-reports',
      handle: (ctx) => {
        const range = parseDateRange(ctx.query);
        const branchId = ctx.query.get('branch_id');
        const reports = (isDemoBuyer(ctx) ? Object.values(env.state.zReports) : []).filter(
          (report) =>
            inDateRange(report.closed_at, range) && (branchId === null || report.branch_id === branchId),
        );
        return pageReply(env, reports, ctx.query);
      },
    },
    {
      ...write,
      path: '/sales/z-reports',
      handle: (ctx) => {
        requireOwner(isDemoBuyer(ctx), 'Account', ctx.caller.accountId);
        return ok(upsertZReports(env, batchItems(ctx.body, 500)));
      },
    },
    {
      ...read,
      path: '/sales/item-sales',
      handle: (ctx) => {
        const range = parseDateRange(ctx.query);
        const branchId = ctx.query.get('branch_id');
        const zNumber = ctx.query.get('z_number');
        const sales = (isDemoBuyer(ctx) ? Object.values(env.state.itemSales) : []).filter(
          (sale) =>
            inDateRange(sale.value_date, range) &&
            (branchId === null || sale.branch_id === branchId) &&
            (zNumber === null || sale.z_number === zNumber),
        );
        return pageReply(env, sales, ctx.query);
      },
    },
    {
      ...write,
      path: '/sales/item-sales',
      handle: (ctx) => {
        requireOwner(isDemoBuyer(ctx), 'Account', ctx.caller.accountId);
        return ok(upsertItemSales(env, batchItems(ctx.body, 5000)));
      },
    },
  ];
}
