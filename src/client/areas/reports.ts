/** Computed reports (gap G17 for parameters and scopes). */
import type { ExpensesReport, FoodCostReport, PnlReport, PurchasesReport } from '../../contract/index.js';
import { requestResource, type ClientContext } from '../context.js';
import { parsers } from '../parsers.js';
import type { ResourceParser } from '../parsing.js';
import type { CallOptions } from '../transport.js';
import type { QueryInput } from '../url.js';
import { callOf } from './common.js';

export interface RequiredRange {
  from: string;
  to: string;
}

export function createReportsApi(ctx: ClientContext) {
  const report = <T>(route: string, parser: ResourceParser<T>, query: QueryInput, options: CallOptions) =>
    requestResource(ctx, { method: 'GET', route, query, ...callOf(options) }, parser);
  return {
    foodCost(options: RequiredRange & { purchase_type?: string } & CallOptions): Promise<FoodCostReport> {
      const { from, to, purchase_type } = options;
      return report('/reports/food-cost', parsers.foodCostReport, { from, to, purchase_type }, options);
    },
    /** group_by: supplier | branch | purchase_type. */
    purchases(options: RequiredRange & { group_by?: string } & CallOptions): Promise<PurchasesReport> {
      const { from, to, group_by } = options;
      return report('/reports/purchases', parsers.purchasesReport, { from, to, group_by }, options);
    },
    /** group_by: one or more of category, branch, purchase_type (sent comma-separated). */
    expenses(
      options: RequiredRange & { group_by?: readonly string[] } & CallOptions,
    ): Promise<ExpensesReport> {
      const { from, to, group_by } = options;
      return report('/reports/expenses', parsers.expensesReport, { from, to, group_by }, options);
    },
    pnl(options: { period: string; branch_id?: string } & CallOptions): Promise<PnlReport> {
      const { period, branch_id } = options;
      return report('/reports/pnl', parsers.pnlReport, { period, branch_id }, options);
    },
  };
}

export type ReportsApi = ReturnType<typeof createReportsApi>;
