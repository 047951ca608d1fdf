/**
 * Report results (part 2.8): one envelope, rows and totals by report. Rows carry the fields of every group_by
 * dimension chosen in gaps.ts (REPORTS), each optional; percentages are null when their base is zero.
 */
import * as z from 'zod';
import { CURRENCIES } from './enums.js';
import { AccountingPeriod, DateString, Money, NonNegativeInt, Percentage, Timestamp } from './formats.js';
import type { SchemaKit } from './kit.js';

/** The envelope every report result shares. */
function result<R extends z.ZodType, T extends z.ZodType>(k: SchemaKit, row: R, totals: T) {
  return k.object({
    from: DateString.optional(),
    to: DateString.optional(),
    generated_at: Timestamp,
    currency: k.enumOf(CURRENCIES),
    dimensions: z.array(z.string()),
    rows: z.array(row),
    totals,
  });
}

function foodCostReport(k: SchemaKit) {
  return result(
    k,
    k.object({
      branch_id: z.string().nullable().optional(),
      branch_name: z.string().nullable().optional(),
      purchase_type: z.string().nullable().optional(),
      purchases: Money,
      sales: Money,
      food_cost_pct: Percentage.nullable(),
    }),
    k.object({
      purchase_type: z.string().nullable().optional(),
      purchases: Money,
      sales: Money,
      food_cost_pct: Percentage.nullable(),
    }),
  );
}

function purchasesReport(k: SchemaKit) {
  return result(
    k,
    k.object({
      supplier_id: z.string().nullable().optional(),
      supplier_name: z.string().nullable().optional(),
      branch_id: z.string().nullable().optional(),
      branch_name: z.string().nullable().optional(),
      purchase_type: z.string().nullable().optional(),
      documents_count: NonNegativeInt,
      purchases: Money,
    }),
    k.object({ documents_count: NonNegativeInt, purchases: Money }),
  );
}

function expensesReport(k: SchemaKit) {
  return result(
    k,
    k.object({
      category_id: z.string().nullable().optional(),
      category_name: z.string().nullable().optional(),
      branch_id: z.string().nullable().optional(),
      branch_name: z.string().nullable().optional(),
      purchase_type: z.string().nullable().optional(),
      expenses: Money,
      vat: Money,
      total: Money,
    }),
    k.object({ expenses: Money, vat: Money, total: Money }),
  );
}

/** pnl carries `period` as well (its query parameter); pl_group is an open set. */
function pnlReport(k: SchemaKit) {
  return result(
    k,
    k.object({
      pl_group: z.string(),
      pl_group_name: z.string(),
      amount: Money,
      pct_of_revenue: Percentage.nullable(),
    }),
    k.object({
      branch_id: z.string().nullable().optional(),
      revenue: Money,
      costs: Money,
      profit: Money,
      profit_pct: Percentage.nullable(),
    }),
  ).extend({ period: AccountingPeriod.optional() });
}

export function defineReports(k: SchemaKit) {
  return {
    FoodCostReport: foodCostReport(k),
    PurchasesReport: purchasesReport(k),
    ExpensesReport: expensesReport(k),
    PnlReport: pnlReport(k),
  };
}
