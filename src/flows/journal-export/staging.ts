/**
 * A run's approved lines, kept on disk instead of in memory: each pulled page is appended to a private temporary
 * SQLite database, then the lines are read back one document at a time, sorted by document id. Memory stays about
 * one page while pulling and one document while walking, whatever the number of lines.
 *
 * The database is SQLite's private temporary file (in the system's temporary folder), unlinked as soon as it is
 * opened: nothing is left behind by a crash, and nothing in it is needed after one, since a run pulls afresh. It is
 * a copy of what the API listed, never a record of what was exported (the batch plans in the state file are).
 * Appending without any index, then one sort, is far cheaper than keeping an index by document while inserting.
 */
import Database from 'better-sqlite3';
import type { JournalLine } from '../../contract/index.js';
import type { StagedField, StagedFields, StagedLine } from '../shared/journal-mapping/line.js';

export interface StagedDocument {
  readonly documentId: string;
  /** In no particular order; each line once (the latest listed copy). */
  readonly lines: readonly StagedLine[];
}

export class LineStaging {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[string, string, string]>;
  readonly #append: (lines: readonly JournalLine[]) => void;

  constructor() {
    // An empty name opens a private temporary database, deleted by SQLite itself.
    this.#db = new Database('');
    this.#db.pragma('journal_mode = OFF');
    this.#db.pragma('synchronous = OFF');
    // The page cache (16 MB by default in this build) also sizes the sorter's in-memory runs: with both at 4 MB
    // the peak RSS of a 1,000,000-line export fell from 257-262 to 228-234 MiB, at no measurable cost in CPU; the
    // rest of the staging and the sort's runs go to the temporary file.
    this.#db.pragma('cache_size = -4000');
    this.#db.exec(
      'CREATE TABLE lines (document_id TEXT NOT NULL, line_id TEXT NOT NULL, fields TEXT NOT NULL)',
    );
    this.#insert = this.#db.prepare('INSERT INTO lines (document_id, line_id, fields) VALUES (?, ?, ?)');
    this.#append = this.#db.transaction((lines: readonly JournalLine[]) => {
      for (const line of lines) this.#insert.run(line.document_id, line.id, encodeFields(line));
    });
  }

  /** Appends one page's lines. A line listed twice (re-stamped during the pull) keeps its later copy. */
  append(lines: readonly JournalLine[]): void {
    if (lines.length > 0) this.#append(lines);
  }

  /**
   * The staged lines document by document, in document id order. Nothing may be appended while a walk is under
   * way; the walk may be left early (the generator's return releases the statement).
   */
  *documents(): Generator<StagedDocument, void, undefined> {
    const rows = this.#db
      .prepare('SELECT document_id, line_id, fields FROM lines ORDER BY document_id, line_id, rowid DESC')
      .raw()
      .iterate() as IterableIterator<[string, string, string]>;
    let documentId: string | null = null;
    let lines: StagedLine[] = [];
    let lastLineId: string | null = null;
    for (const [document, lineId, fields] of rows) {
      if (document !== documentId) {
        if (documentId !== null) yield { documentId, lines };
        documentId = document;
        lines = [];
        lastLineId = null;
      }
      if (lineId === lastLineId) continue;
      lastLineId = lineId;
      lines.push(decodeLine(lineId, document, fields));
    }
    if (documentId !== null) yield { documentId, lines };
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

function encodeFields(line: JournalLine): string {
  // Spelled out like decodeLine; absent optional fields are staged as null.
  const values: StagedValues = [
    line.document_type,
    line.document_number,
    line.source,
    line.side,
    line.account,
    line.counter_account ?? null,
    line.amount,
    line.currency,
    line.description,
    line.vendor_id,
    line.vendor_tax_id ?? null,
    line.branch_id,
    line.purchase_type ?? null,
    line.reference,
    line.allocation_number ?? null,
    line.doc_date,
    line.accounting_period,
    line.movement_type_code ?? null,
  ];
  return JSON.stringify(values);
}

/** The staged values, in StagedFields order. */
type StagedValues = ValuesOf<StagedFields>;
type ValuesOf<Fields extends readonly StagedField[]> = {
  readonly [I in keyof Fields]: StagedLine[Fields[I] & StagedField];
};

// One object literal of a fixed shape, not keys added in a loop: the walk decodes every line, and reading back a
// million staged lines took 1.6 s this way against 2.5 to 2.8 s key by key.
function decodeLine(id: string, documentId: string, fields: string): StagedLine {
  const v = JSON.parse(fields) as StagedValues;
  return {
    id,
    document_id: documentId,
    document_type: v[0],
    document_number: v[1],
    source: v[2],
    side: v[3],
    account: v[4],
    counter_account: v[5],
    amount: v[6],
    currency: v[7],
    description: v[8],
    vendor_id: v[9],
    vendor_tax_id: v[10],
    branch_id: v[11],
    purchase_type: v[12],
    reference: v[13],
    allocation_number: v[14],
    doc_date: v[15],
    accounting_period: v[16],
    movement_type_code: v[17],
  };
}
