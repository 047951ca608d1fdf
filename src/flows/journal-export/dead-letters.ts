/**
 * Dead letters of a journal-export job, one per document (or per line, for a line that reached the target but could
 * not be marked exported). Unbalanced and unmapped documents are looked at again on every run, since fixing a
 * mapping or the source is enough to let them through; documents the target refused wait until someone asks for a
 * retry, so they do not hold up the batch of every run.
 */
import type { JournalLine } from '../../contract/index.js';
import type { DeadLetterStatus, StateStore, SyncStatement } from '../../state/index.js';
import type { MissingMapping } from '../../shared/missing-mapping.js';
import type { StagedLine } from '../shared/journal-mapping/line.js';

/**
 * unbalanced / unmapped / not_writable (the target's precheck refused it): looked at again on every run.
 * target_refused (the write itself failed on this document) and lost_after_write: wait for a person.
 */
export type DeadLetterKind =
  'unbalanced' | 'unmapped' | 'not_writable' | 'target_refused' | 'lost_after_write';

export interface DeadLetterRecord {
  readonly kind: DeadLetterKind;
  readonly documentId?: string;
  readonly lineId?: string;
  readonly lines?: readonly Pick<JournalLine, 'id' | 'side' | 'account' | 'amount' | 'document_number'>[];
  readonly batchKey?: string;
  /** An unmapped document: the value and table, read back by the notifications to say what to add. */
  readonly missing?: MissingMapping;
}

const DOCUMENT_PREFIX = 'document:';

export function documentKey(documentId: string): string {
  return `${DOCUMENT_PREFIX}${documentId}`;
}

const LINE_PREFIX = 'line:';

/** What a run needs to know about a document's letter to decide whether its lines go into a batch. */
export interface LetterState {
  readonly status: DeadLetterStatus;
  readonly kind: DeadLetterKind | null;
}

export class DeadLetterBook {
  /** Prepared once per book: a run may look up every line it sees. */
  #lineLetter: SyncStatement | undefined;

  constructor(
    private readonly state: StateStore,
    /** The job's name: dead letters are listed and retried per job. */
    private readonly flow: string,
  ) {}

  /**
   * The letters that decide about a document (open, retrying or discarded), by document id: read once per walk
   * instead of once per document. They are few: a letter stands for a problem someone has to look at.
   */
  pendingByDocument(): Map<string, LetterState> {
    const rows = this.state.db
      .prepare(
        `SELECT record_key, status, record FROM dead_letters
         WHERE flow = ? AND record_key >= ? AND record_key < ? AND status IN ('open', 'retrying', 'discarded')`,
      )
      .all(this.flow, DOCUMENT_PREFIX, 'document;') as {
      record_key: string;
      status: DeadLetterStatus;
      record: string;
    }[];
    const letters = new Map<string, LetterState>();
    for (const row of rows) {
      const record = JSON.parse(row.record) as Partial<DeadLetterRecord> | null;
      letters.set(row.record_key.slice(DOCUMENT_PREFIX.length), {
        status: row.status,
        kind: record?.kind ?? null,
      });
    }
    return letters;
  }

  /** True when some line of this job reached the target but could not be marked exported. */
  hasAnyLostLine(): boolean {
    const row = this.state.db
      .prepare('SELECT 1 FROM dead_letters WHERE flow = ? AND record_key >= ? AND record_key < ? LIMIT 1')
      .get(this.flow, LINE_PREFIX, 'line;');
    return row !== undefined;
  }

  file(
    documentId: string,
    kind: DeadLetterKind,
    reason: string,
    extra: { lines?: readonly StagedLine[]; batchKey?: string; missing?: MissingMapping | undefined } = {},
  ): void {
    const record: DeadLetterRecord = {
      kind,
      documentId,
      ...(extra.batchKey === undefined ? {} : { batchKey: extra.batchKey }),
      ...(extra.missing === undefined ? {} : { missing: extra.missing }),
      ...(extra.lines === undefined
        ? {}
        : {
            lines: extra.lines.map((l) => ({
              id: l.id,
              side: l.side,
              account: l.account,
              amount: l.amount,
              document_number: l.document_number,
            })),
          }),
    };
    this.state.deadLetters.add(this.flow, documentKey(documentId), record, reason);
  }

  fileLine(lineId: string, reason: string, extra: { batchKey: string }): void {
    const record: DeadLetterRecord = { kind: 'lost_after_write', lineId, batchKey: extra.batchKey };
    this.state.deadLetters.add(this.flow, `${LINE_PREFIX}${lineId}`, record, reason);
  }

  /** True when the line reached the target but could not be marked exported (whatever the letter's status). */
  hasLostLine(lineId: string): boolean {
    this.#lineLetter ??= this.state.db.prepare(
      'SELECT 1 FROM dead_letters WHERE flow = ? AND record_key = ?',
    );
    return this.#lineLetter.get(this.flow, `${LINE_PREFIX}${lineId}`) !== undefined;
  }

  resolve(documentId: string): void {
    this.state.deadLetters.resolve(this.flow, documentKey(documentId));
  }
}
