/** Documents: delivery notes, invoices, credit notes, consolidated invoices (part 2.6). */
import * as z from 'zod';
import {
  BUYER_STATUSES,
  CURRENCIES,
  DIFFERENCE_FIELDS,
  DOCUMENT_SOURCES,
  DOCUMENT_TYPES,
  EXPORT_STATUSES,
  PAYMENT_STATUSES,
} from './enums.js';
import { AccountingPeriod, DateString, Id, Money, Quantity, Timestamp } from './formats.js';
import type { SchemaKit } from './kit.js';
import type { SharedShapes } from './shared.js';

export function defineDocuments(k: SchemaKit, s: SharedShapes) {
  const DocumentLine = k.object({
    id: Id,
    sku: z.string(),
    name: z.string(),
    quantity: Quantity,
    unit_price: Money,
    total: Money,
    unit: z.string().optional(),
    discount_pct: z.string().nullable().optional(),
    vat_exempt: z.boolean().optional(),
    order_id: z.string().nullable().optional(),
    order_line_id: z.string().nullable().optional(),
    quantity_received: Quantity.nullable().optional(),
    purchase_type: z.string().nullable().optional(),
    expense_account: z.string().nullable().optional(),
  });
  const Difference = k.object({
    line_id: z.string().optional(),
    sku: z.string().optional(),
    field: k.enumOf(DIFFERENCE_FIELDS),
    issued: z.string().optional(),
    received: z.string().optional(),
    note: z.string().optional(),
  });
  const Document = k.object({
    id: Id,
    type: k.enumOf(DOCUMENT_TYPES),
    number: z.string(),
    date: DateString,
    accounting_period: AccountingPeriod.optional(),
    due_date: DateString.nullable().optional(),
    supplier: s.PartyRef,
    buyer: s.PartyRef,
    branch: s.BranchRef.optional(),
    purchase_type: z.string().nullable().optional(),
    source: k.enumOf(DOCUMENT_SOURCES).optional(),
    order_ids: z.array(z.string()).optional(),
    currency: k.enumOf(CURRENCIES),
    totals: s.Totals,
    allocation_number: z.string().nullable().optional(),
    lines: z.array(DocumentLine).optional(),
    buyer_status: k.enumOf(BUYER_STATUSES),
    differences: z.array(Difference).optional(),
    payment_status: k.enumOf(PAYMENT_STATUSES).optional(),
    paid_at: Timestamp.nullable().optional(),
    export_status: k.enumOf(EXPORT_STATUSES).optional(),
    exported_at: Timestamp.nullable().optional(),
    files: z.array(s.FileRef).optional(),
    external_ref: z.string().nullable().optional(),
    history: z.array(s.HistoryEntry).optional(),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: Timestamp.nullable().optional(),
  });
  return { DocumentLine, Difference, Document };
}
