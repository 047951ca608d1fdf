/** Request bodies of the buyer endpoints (part 4.8-4.10). */
import * as z from 'zod';
import { EXPENSE_DOC_TYPES, VAT_MODES } from './enums.js';
import { AccountingPeriod, DateString, Id, Money } from './formats.js';
import type { SchemaKit } from './kit.js';
import { LIMITS } from './limits.js';

export interface BuyerRequestDeps<T extends z.ZodType, Z extends z.ZodType, I extends z.ZodType> {
  ExpenseTotals: T;
  ZReportInput: Z;
  ItemSaleInput: I;
  /** Body fields of POST /expenses chosen in gaps.ts (G13). */
  expenseGapFields: z.ZodRawShape;
}

export function defineBuyerRequests<T extends z.ZodType, Z extends z.ZodType, I extends z.ZodType>(
  k: SchemaKit,
  d: BuyerRequestDeps<T, Z, I>,
) {
  const CreateExpenseLine = k.object({
    category_id: Id,
    amount_before_vat: Money,
    vat_amount: Money.optional(),
    purchase_type: z.string().nullable().optional(),
    branch_id: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
  });
  /** POST /expenses */
  const CreateExpenseRequest = k.object({
    vendor_id: Id,
    doc_type: k.enumOf(EXPENSE_DOC_TYPES),
    doc_date: DateString,
    branch_id: Id,
    vat_mode: k.enumOf(VAT_MODES),
    totals: d.ExpenseTotals,
    lines: z.array(CreateExpenseLine).min(1),
    merchant_name: z.string().max(LIMITS.length.merchantName).nullable().optional(),
    doc_number: z.string().max(LIMITS.length.docNumber).nullable().optional(),
    allocation_number: z.string().max(LIMITS.length.allocationNumber).nullable().optional(),
    due_date: DateString.nullable().optional(),
    accounting_period: AccountingPeriod.optional(),
    purchase_type: z.string().nullable().optional(),
    payment_method: z.string().nullable().optional(),
    ...d.expenseGapFields,
  });
  /** POST /accounting/exports */
  const CreateAccountingExportRequest = k.object({
    journal_line_ids: z.array(Id).min(1).max(LIMITS.journalLinesPerExport),
    target: z.string().nullable().optional(),
    external_ref: z.string().nullable().optional(),
  });
  /** POST /sales/z-reports */
  const ZReportBatchRequest = k.object({ items: z.array(d.ZReportInput).min(1).max(LIMITS.batch.zReports) });
  /** POST /sales/item-sales */
  const ItemSaleBatchRequest = k.object({
    items: z.array(d.ItemSaleInput).min(1).max(LIMITS.batch.itemSales),
  });
  return {
    CreateExpenseLine,
    CreateExpenseRequest,
    CreateAccountingExportRequest,
    ZReportBatchRequest,
    ItemSaleBatchRequest,
  };
}
