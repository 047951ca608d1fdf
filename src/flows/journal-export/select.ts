/** Decides, document by document, what goes into this run's batches and what becomes (or stays) a dead letter. */
import type { AccountingWriter } from '../../connector-contract/capabilities.js';
import type { JournalEntry, PreparedEntries } from '../../connector-contract/journal.js';
import type { MissingMapping } from '../../shared/missing-mapping.js';
import type { DeadLetterBook, LetterState } from './dead-letters.js';
import {
  numberedEntry,
  type DocumentGroup,
  type GroupEntry,
  type GroupMapper,
  type MappedGroup,
} from '../shared/journal-mapping/mapping.js';

/** Optional writer capability: tells, without side effects, why entries would be refused. */
export interface EntryPrecheck {
  precheckEntries(entries: readonly JournalEntry[]): Promise<string | null>;
}

export function hasPrecheck(writer: AccountingWriter): writer is AccountingWriter & EntryPrecheck {
  return typeof (writer as Partial<EntryPrecheck>).precheckEntries === 'function';
}

/**
 * Optional writer capability: the precheck, handing back (when the entries can be written) what writeJournalBatch
 * may reuse of the work for a batch holding the same entries; `prepared` is null when nothing can be reused.
 */
export interface EntryPreparation {
  prepareEntries(
    entries: readonly JournalEntry[],
  ): Promise<
    { readonly refusal: string } | { readonly refusal: null; readonly prepared: PreparedEntries | null }
  >;
}

function hasPreparation(writer: AccountingWriter): writer is AccountingWriter & EntryPreparation {
  return typeof (writer as Partial<EntryPreparation>).prepareEntries === 'function';
}

export type ReadyGroup = Extract<MappedGroup, { ok: true }>;

export interface FailedGroup {
  readonly group: DocumentGroup;
  readonly kind: 'unbalanced' | 'unmapped' | 'not_writable';
  readonly reason: string;
  /** An unmapped value: what to add to which table. */
  readonly missing?: MissingMapping;
  /** Every unmapped value of the document, the first one included. */
  readonly allMissing?: readonly MissingMapping[];
}

/** The document's unmapped values: all of them when the mapper named them, else the one filed. */
export function allMissingOf(failure: FailedGroup): readonly MissingMapping[] {
  return failure.allMissing ?? (failure.missing === undefined ? [] : [failure.missing]);
}

export type Decision =
  /** Discarded by a person, holding a line already in the target, or waiting for a retry to be asked for. */
  | { readonly outcome: 'skip' }
  | { readonly outcome: 'failed'; readonly failure: FailedGroup }
  /**
   * For the shared batches; `letter` is the document's earlier dead letter, resolved once the batch is planned;
   * `prepared` is what the writer's check left for writing the document's entries.
   */
  | {
      readonly outcome: 'ready';
      readonly mapped: ReadyGroup;
      readonly letter: LetterState | null;
      readonly prepared: PreparedEntries | null;
    }
  /** Retried after a refusal by the target: goes into a batch of its own. */
  | {
      readonly outcome: 'isolated';
      readonly mapped: ReadyGroup;
      readonly letter: LetterState;
      readonly prepared: PreparedEntries | null;
    };

export class GroupSelector {
  /** Lost lines are rare; when the job has none, no line needs looking up. */
  readonly #checkLines: boolean;
  /** Taken when the walk starts: the documents it files or resolves are not seen again in the same walk. */
  readonly #letters: ReadonlyMap<string, LetterState>;

  constructor(
    private readonly mapper: GroupMapper,
    private readonly writer: AccountingWriter,
    private readonly deadLetters: DeadLetterBook,
  ) {
    this.#checkLines = deadLetters.hasAnyLostLine();
    this.#letters = deadLetters.pendingByDocument();
  }

  async decide(group: DocumentGroup): Promise<Decision> {
    const letter = this.#letters.get(group.documentId) ?? null;
    if (letter?.status === 'discarded') return { outcome: 'skip' };
    // A line already in the target that the API lists as approved again must never be written a second time.
    if (this.#checkLines && group.lines.some((line) => this.deadLetters.hasLostLine(line.id))) {
      return { outcome: 'skip' };
    }
    if (letter?.kind === 'target_refused' && letter.status === 'open') return { outcome: 'skip' };
    const mapped = this.mapper.map(group);
    if (!mapped.ok) {
      const kind = mapped.reason.startsWith('does not balance') ? 'unbalanced' : 'unmapped';
      const { missing, allMissing } = mapped;
      const unmapped = missing === undefined ? {} : { missing, ...(allMissing && { allMissing }) };
      return { outcome: 'failed', failure: { group, kind, reason: mapped.reason, ...unmapped } };
    }
    let prepared: PreparedEntries | null = null;
    if (mapped.entries.length > 0) {
      const checked = await this.#check(mapped.entries);
      if (checked.refusal !== null) {
        return { outcome: 'failed', failure: { group, kind: 'not_writable', reason: checked.refusal } };
      }
      prepared = checked.prepared;
    }
    if (letter?.kind === 'target_refused') return { outcome: 'isolated', mapped, letter, prepared };
    return { outcome: 'ready', mapped, letter, prepared };
  }

  /** The writer's word on a document's entries, numbered as in a batch of their own. */
  async #check(
    entries: readonly GroupEntry[],
  ): Promise<
    { readonly refusal: string } | { readonly refusal: null; readonly prepared: PreparedEntries | null }
  > {
    const numbered = () => entries.map((entry, i) => numberedEntry(entry, i + 1));
    if (hasPreparation(this.writer)) return this.writer.prepareEntries(numbered());
    if (!hasPrecheck(this.writer)) return { refusal: null, prepared: null };
    const refusal = await this.writer.precheckEntries(numbered());
    return refusal === null ? { refusal: null, prepared: null } : { refusal };
  }
}
