/** Journal lines and accounting export batches (part 2.7). */
import * as z from 'zod';
import { CURRENCIES, JOURNAL_LINE_STATUSES, JOURNAL_SIDES, JOURNAL_SOURCES } from './enums.js';
import { AccountingPeriod, DateString, Id, Money, NonNegativeInt, Timestamp } from './formats.js';
import type { SchemaKit } from './kit.js';

export function defineAccounting(k: SchemaKit) {
  /** The 27 fields of a journal line. */
  const JournalLine = k.object({
    id: Id,
    document_id: z.string(),
    /** A document type or an expense doc_type: an open union of two enums, so a plain string. */
    document_type: z.string(),
    document_number: z.string(),
    source: k.enumOf(JOURNAL_SOURCES),
    side: k.enumOf(JOURNAL_SIDES),
    account: z.string(),
    counter_account: z.string().nullable().optional(),
    amount: Money,
    currency: k.enumOf(CURRENCIES),
    description: z.string(),
    vendor_id: z.string(),
    vendor_tax_id: z.string().nullable().optional(),
    branch_id: z.string(),
    branch_tax_id: z.string().nullable().optional(),
    purchase_type: z.string().nullable().optional(),
    category_id: z.string().nullable().optional(),
    reference: z.string(),
    allocation_number: z.string().nullable().optional(),
    doc_date: DateString,
    accounting_period: AccountingPeriod,
    movement_type_code: z.string().nullable().optional(),
    batch_number: z.string().nullable().optional(),
    status: k.enumOf(JOURNAL_LINE_STATUSES),
    export_batch_id: z.string().nullable().optional(),
    exported_at: Timestamp.nullable().optional(),
    updated_at: Timestamp,
  });
  const AccountingExportBatch = k.object({
    id: Id,
    line_count: NonNegativeInt,
    target: z.string().nullable().optional(),
    external_ref: z.string().nullable().optional(),
    exported_at: Timestamp,
    exported_by: k.object({ client_id: z.string(), client_name: z.string() }),
  });
  return { JournalLine, AccountingExportBatch };
}
