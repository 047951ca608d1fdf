import type { DecimalString, IsoDate, Period } from './values.js';

/** One balanced movement line as an accounting system receives it. */
export interface JournalEntry {
  /** 1-based position inside the batch; stable across re-runs of the same batch. */
  readonly lineNumber: number;
  readonly side: 'debit' | 'credit';
  /** Account charged on `side`. */
  readonly account: string;
  /** The other side's account, when the target records movements in pairs. */
  readonly counterAccount: string | null;
  /** Positive amount with 2 fraction digits. */
  readonly amount: DecimalString;
  readonly currency: string;
  /** Reference (document) date. */
  readonly date: IsoDate;
  /** Value date; accounting period derives from it. */
  readonly valueDate: IsoDate;
  readonly period: Period;
  /** Primary reference, usually the source document number after the configured mapping rule. */
  readonly reference: string;
  readonly reference2: string | null;
  readonly branchCode: string | null;
  readonly movementType: string | null;
  readonly description: string;
  /** The API's branch id, purchase type and the vendor's VAT number, for targets with columns for them. */
  readonly branchId?: string | null;
  readonly purchaseType?: string | null;
  readonly vendorTaxId?: string | null;
  /** Ids of the source journal lines this entry carries (for traceability columns). */
  readonly sourceIds: readonly string[];
}

/**
 * Every key of a JournalEntry but its line number (its place in the batch): what an entry says. Code that copies
 * or compares entries field by field (the saved batch plan, a writer's reuse of rendered records) is checked
 * against this list, which the type below keeps complete: a field added to JournalEntry and not listed here fails
 * to compile.
 */
export const JOURNAL_ENTRY_CONTENT_KEYS = [
  'side',
  'account',
  'counterAccount',
  'amount',
  'currency',
  'date',
  'valueDate',
  'period',
  'reference',
  'reference2',
  'branchCode',
  'movementType',
  'description',
  'branchId',
  'purchaseType',
  'vendorTaxId',
  'sourceIds',
] as const satisfies readonly Exclude<keyof JournalEntry, 'lineNumber'>[];

type Unlisted = Exclude<keyof JournalEntry, 'lineNumber' | (typeof JOURNAL_ENTRY_CONTENT_KEYS)[number]>;
type MustBeEmpty<T extends never> = T;
/** Fails to compile while a key of JournalEntry is missing from JOURNAL_ENTRY_CONTENT_KEYS. */
export type JournalEntryContentKeysComplete = MustBeEmpty<Unlisted>;

/** Whether two entries say the same (line numbers aside); an absent optional field equals null. */
export function sameEntryContent(a: JournalEntry, b: JournalEntry): boolean {
  for (const key of JOURNAL_ENTRY_CONTENT_KEYS) {
    const left = a[key] ?? null;
    const right = b[key] ?? null;
    if (left === right) continue;
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    if (!left.every((item, i) => item === right[i])) return false;
  }
  return true;
}

/** A complete, balanced group of entries written atomically. `batchKey` makes the write idempotent. */
export interface JournalBatch {
  readonly batchKey: string;
  readonly entries: readonly JournalEntry[];
}

/**
 * What a writer's check of some entries (a document) left for writing them, opaque to flows: a flow hands the
 * pieces of a batch's documents back to writeJournalBatch, in the batch's order, so the work is not done twice.
 * Never saved: a batch resumed after a restart is written from its entries alone.
 */
export interface PreparedEntries {
  readonly entryCount: number;
}

export interface WriteResult {
  readonly batchKey: string;
  /** `already_written` when the target already held this batch key: nothing was written again. */
  readonly status: 'written' | 'already_written';
  readonly entryCount: number;
  /** Where the batch landed, for the ledger and the export call (a file name, a table). */
  readonly location: string;
}

/** The fields of a journal entry a target can map to its own columns (a table, a CSV file). */
export const JOURNAL_ENTRY_FIELDS = [
  'batch_key',
  'line_number',
  'side',
  'account',
  'counter_account',
  'amount',
  'debit',
  'credit',
  'currency',
  'date',
  'value_date',
  'period',
  'reference',
  'reference2',
  'branch_code',
  'movement_type',
  'description',
  'source_ids',
] as const;

export type JournalEntryField = (typeof JOURNAL_ENTRY_FIELDS)[number];
