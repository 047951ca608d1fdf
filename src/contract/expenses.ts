/** Expenses (part 2.7). The card transaction record is a gap choice and lives in gaps.ts. */
import * as z from 'zod';
import {
  CURRENCIES,
  EXPENSE_DOC_TYPES,
  EXPENSE_SOURCES,
  EXPENSE_STATUSES,
  PAYMENT_STATUSES,
  VAT_MODES,
} from './enums.js';
import { AccountingPeriod, DateString, Id, Money, Timestamp } from './formats.js';
import type { SchemaKit } from './kit.js';
import type { SharedShapes } from './shared.js';

export function defineExpenses(k: SchemaKit, s: SharedShapes) {
  const ExpenseLine = k.object({
    id: Id,
    category_id: z.string(),
    amount_before_vat: Money,
    vat_amount: Money,
    purchase_type: z.string().nullable().optional(),
    branch_id: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    expense_account: z.string().nullable().optional(),
  });
  const Expense = k.object({
    id: Id,
    vendor_id: z.string(),
    vendor: s.PartyRef.optional(),
    merchant_name: z.string().nullable().optional(),
    doc_type: k.enumOf(EXPENSE_DOC_TYPES),
    doc_number: z.string().nullable().optional(),
    allocation_number: z.string().nullable().optional(),
    doc_date: DateString,
    due_date: DateString.nullable().optional(),
    accounting_period: AccountingPeriod.optional(),
    branch_id: z.string(),
    purchase_type: z.string().nullable().optional(),
    vat_mode: k.enumOf(VAT_MODES),
    currency: k.enumOf(CURRENCIES),
    totals: s.ExpenseTotals,
    payment_method: z.string().nullable().optional(),
    payment_status: k.enumOf(PAYMENT_STATUSES).optional(),
    paid_at: Timestamp.nullable().optional(),
    status: k.enumOf(EXPENSE_STATUSES),
    source: k.enumOf(EXPENSE_SOURCES),
    lines: z.array(ExpenseLine),
    files: z.array(s.FileRef).optional(),
    notes: z.string().nullable().optional(),
    approved_by: z.string().nullable().optional(),
    approved_at: Timestamp.nullable().optional(),
    exported_at: Timestamp.nullable().optional(),
    external_ref: z.string().nullable().optional(),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: Timestamp.nullable().optional(),
  });
  return { ExpenseLine, Expense };
}
