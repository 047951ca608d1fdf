import type { DecimalString, IsoDate, Period } from './values.js';

/**
 * One posting as the books hold it, read back for reconciliation. A target fills what it keeps: a SQL table only
 * the columns it maps, a Hashavshevet file no period and no source ids. Fields it does not keep are null.
 */
export interface BookEntry {
  /** Where the posting was read, for a person to find it: "gl_journal row 12", "done/MOVEIN-je-1.DOC record 3". */
  readonly location: string;
  readonly batchKey: string | null;
  /** Ids of the API journal lines the posting carries, when the target keeps them. */
  readonly sourceIds: readonly string[] | null;
  readonly side: 'debit' | 'credit';
  readonly account: string;
  /** Positive, 2 fraction digits. */
  readonly amount: DecimalString;
  readonly date: IsoDate | null;
  readonly valueDate: IsoDate | null;
  readonly period: Period | null;
  readonly reference: string | null;
}

/** Which entry fields a target keeps: reconciliation compares and scopes by these only. */
export interface BookFields {
  readonly date: boolean;
  readonly valueDate: boolean;
  readonly period: boolean;
  readonly reference: boolean;
}

/** A record of the books that does not balance on its own (edited by hand): a difference of its own. */
export interface UnbalancedRecord {
  /** Where it is: a file and its own record number. */
  readonly location: string;
  /** Its reference as the books keep it. */
  readonly reference: string | null;
  readonly detail: string;
}

export interface BookRead {
  readonly fields: BookFields;
  readonly entries: readonly BookEntry[];
  /** Records read whose debits and credits differ; their postings are in `entries` as they stand. */
  readonly unbalanced?: readonly UnbalancedRecord[];
  /** The places read (tables, files), for the report. */
  readonly sources: readonly string[];
  /** What a person should know when reading the report (entries named by what they hold, not by a key). */
  readonly notes?: readonly string[];
}

/**
 * Reading the books back: read-only, it never changes the target. Offered by an AccountingWriter whose target can
 * be read (a table, files in a folder); a target that cannot be read leaves it out. Throws a ConnectorError naming
 * the folder, file or table when the books cannot be read.
 */
export interface JournalReadBack {
  readBooks(): Promise<BookRead>;
  /** The reference as the target writes it (Hashavshevet keeps digits only); null when it cannot tell. */
  bookReference(reference: string): Promise<string | null>;
}
