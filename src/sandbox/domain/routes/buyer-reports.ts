/** Buyer reports (4.12, G17): food cost, purchases, expenses, profit and loss. */
import { REPORTS } from '../../../contract/index.js';
import type { RouteDef } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { expensesReport, foodCostReport, pnlReport, purchasesReport } from '../reports.js';
import { BUYER_GROUP, isDemoBuyer, ok, requireOwner } from './common.js';

const COMPUTED = [
  ['/reports/food-cost', foodCostReport],
  ['/reports/purchases', purchasesReport],
  ['/reports/expenses', expensesReport],
  ['/reports/pnl', pnlReport],
] as const;

export function buyerReportRoutes(env: DomainEnv): RouteDef[] {
  return COMPUTED.map(([path, compute]): RouteDef => ({
    accountType: 'buyer',
    group: BUYER_GROUP,
    minPlan: 'Pro',
    method: 'GET',
    path,
    scope: REPORTS[path].scope,
    handle: (ctx) => {
      requireOwner(isDemoBuyer(ctx), 'Report', path);
      return ok(compute(env, ctx.query));
    },
  }));
}
