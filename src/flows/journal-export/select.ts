/** Decides, document by document, what goes into this run's batches and what becomes (or stays) a dead letter. */
import type { AccountingWriter } from '../../connectors/capabilities.js';
import type { JournalEntry } from '../../connectors/journal.js';
import type { JournalLine } from '../../contract/index.js';
import type { DeadLetterBook } from './dead-letters.js';
import { groupByDocument, type GroupMapper, type MappedGroup } from './mapping.js';

/** Optional writer capability: tells, without side effects, why entries would be refused. */
export interface EntryPrecheck {
  precheckEntries(entries: readonly JournalEntry[]): Promise<string | null>;
}

export function hasPrecheck(writer: AccountingWriter): writer is AccountingWriter & EntryPrecheck {
  return typeof (writer as Partial<EntryPrecheck>).precheckEntries === 'function';
}

export type ReadyGroup = Extract<MappedGroup, { ok: true }>;

export interface Selection {
  /** Groups for the shared batches. */
  readonly ready: ReadyGroup[];
  /** Groups retried after a refusal by the target: each goes into a batch of its own. */
  readonly isolated: ReadyGroup[];
  readonly failed: {
    group: MappedGroup['group'];
    kind: 'unbalanced' | 'unmapped' | 'not_writable';
    reason: string;
  }[];
  skipped: number;
}

export async function selectGroups(
  lines: Iterable<JournalLine>,
  mapper: GroupMapper,
  writer: AccountingWriter,
  deadLetters: DeadLetterBook,
): Promise<Selection> {
  const selection: Selection = { ready: [], isolated: [], failed: [], skipped: 0 };
  for (const group of groupByDocument(lines)) {
    const letter = deadLetters.get(group.documentId);
    if (letter?.status === 'discarded') {
      selection.skipped += 1;
      continue;
    }
    // A line already in the target that the API lists as approved again must never be written a second time.
    if (group.lines.some((line) => deadLetters.hasLostLine(line.id))) {
      selection.skipped += 1;
      continue;
    }
    const waitsForRetry = letter?.kind === 'target_refused' && letter.status === 'open';
    if (waitsForRetry) {
      selection.skipped += 1;
      continue;
    }
    const mapped = mapper.map(group);
    if (!mapped.ok) {
      const kind = mapped.reason.startsWith('does not balance') ? 'unbalanced' : 'unmapped';
      selection.failed.push({ group, kind, reason: mapped.reason });
      continue;
    }
    if (hasPrecheck(writer) && mapped.entries.length > 0) {
      const entries = mapped.entries.map((entry, i) => ({ ...entry, lineNumber: i + 1 }));
      const refusal = await writer.precheckEntries(entries);
      if (refusal !== null) {
        selection.failed.push({ group, kind: 'not_writable', reason: refusal });
        continue;
      }
    }
    if (letter?.kind === 'target_refused') selection.isolated.push(mapped);
    else selection.ready.push(mapped);
  }
  return selection;
}
