/** Buyer sales (4.10), inventory counts (4.11, G18) and reports (4.12, G17). */
import { INVENTORY_SCOPE, REPORTS } from '../../../contract/index.js';
import { inDateRange, parseDateRange } from '../../http/paging.js';
import type { RouteDef } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { inventoryView } from '../inventory.js';
import { expensesReport, foodCostReport, pnlReport, purchasesReport } from '../reports.js';
import { upsertItemSales, upsertZReports } from '../sales.js';
import { BUYER_GROUP, batchItems, isDemoBuyer, ok, pageReply, requireOwner } from './common.js';
import { notFound } from '../errors.js';

export function buyerSalesRoutes(env: DomainEnv): RouteDef[] {
  const base = { accountType: 'buyer', group: BUYER_GROUP, minPlan: 'Pro' } as const;
  return [
    {
      ...base,
      method: 'GET',
      path: '/sales/z-reports',
      scope: 'buyer.sales:read',
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
      ...base,
      method: 'POST',
      path: '/sales/z-reports',
      scope: 'buyer.sales:write',
      handle: (ctx) => {
        requireOwner(isDemoBuyer(ctx), 'Account', ctx.caller.accountId);
        return ok(upsertZReports(env, batchItems(ctx.body, 500)));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/sales/item-sales',
      scope: 'buyer.sales:read',
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
      ...base,
      method: 'POST',
      path: '/sales/item-sales',
      scope: 'buyer.sales:write',
      handle: (ctx) => {
        requireOwner(isDemoBuyer(ctx), 'Account', ctx.caller.accountId);
        return ok(upsertItemSales(env, batchItems(ctx.body, 5000)));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/inventory-counts',
      scope: INVENTORY_SCOPE,
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
      scope: INVENTORY_SCOPE,
      handle: (ctx) => {
        const id = ctx.params['count_id'] ?? '';
        requireOwner(isDemoBuyer(ctx), 'Inventory count', id);
        const count = env.state.inventoryCounts[id];
        if (!count) throw notFound('Inventory count', id);
        return ok(inventoryView(count, true));
      },
    },
    ...(
      [
        ['/reports/food-cost', foodCostReport],
        ['/reports/purchases', purchasesReport],
        ['/reports/expenses', expensesReport],
        ['/reports/pnl', pnlReport],
      ] as const
    ).map(([path, compute]): RouteDef => ({
      ...base,
      method: 'GET',
      path,
      scope: REPORTS[path].scope,
      handle: (ctx) => {
        requireOwner(isDemoBuyer(ctx), 'Report', path);
        return ok(compute(env, ctx.query));
      },
    })),
  ];
}
