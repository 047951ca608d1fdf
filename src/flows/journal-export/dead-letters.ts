/**
 * Dead letters of a journal-export job, one per document (or per line, for a line that reached the target but could
 * not be marked exported). Unbalanced and unmapped documents are looked at again on every run, since fixing a
 * mapping or the source is enough to let them through; documents the target refused wait until someone asks for a
 * retry, so they do not hold up the batch of every run.
 */
import type { JournalLine } from '../../contract/index.js';
import type { StateStore } from '../../state/index.js';
import type { DeadLetter } from '../../state/index.js';

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
}

export function documentKey(documentId: string): string {
  return `document:${documentId}`;
}

export class DeadLetterBook {
  constructor(
    private readonly state: StateStore,
    /** The job's name: dead letters are listed and retried per job. */
    private readonly flow: string,
  ) {}

  get(documentId: string): (DeadLetter & { kind: DeadLetterKind | null }) | null {
    const letter = this.state.deadLetters.get(this.flow, documentKey(documentId));
    if (letter === null) return null;
    const record = letter.record as Partial<DeadLetterRecord> | null;
    return { ...letter, kind: record?.kind ?? null };
  }

  file(
    documentId: string,
    kind: DeadLetterKind,
    reason: string,
    extra: { lines?: readonly JournalLine[]; batchKey?: string } = {},
  ): void {
    const record: DeadLetterRecord = {
      kind,
      documentId,
      ...(extra.batchKey === undefined ? {} : { batchKey: extra.batchKey }),
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
    this.state.deadLetters.add(this.flow, `line:${lineId}`, record, reason);
  }

  /** True when the line reached the target but could not be marked exported (whatever the letter's status). */
  hasLostLine(lineId: string): boolean {
    return this.state.deadLetters.get(this.flow, `line:${lineId}`) !== null;
  }

  resolve(documentId: string): void {
    this.state.deadLetters.resolve(this.flow, documentKey(documentId));
  }
}
