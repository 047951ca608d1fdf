/**
 * What a batch plan holds, and the key its lines give it: shared by the plans (plans.ts) and the form they are
 * saved in (stored-plan.ts), which decodes a saved plan back into one.
 */
import { createHash } from 'node:crypto';
import type { JournalBatch, PreparedEntries } from '../../connector-contract/journal.js';

export interface BatchPlan {
  readonly version: 1;
  readonly batchKey: string;
  readonly createdAt: number;
  /** Sorted; the batch key derives from them. */
  readonly lineIds: readonly string[];
  readonly documentIds: readonly string[];
  /** Line ids per document, so a batch the target refuses can be split into one batch per document. */
  readonly documentLines: Readonly<Record<string, readonly string[]>>;
  /** Accounting periods of the lines: where reconciliation looks them up. */
  readonly periods: readonly string[];
  readonly batch: JournalBatch;
  readonly target: string;
  /** Whether the batch is known to be in the target. Plans are saved with false; that the batch was written is
   *  noted in the ledger (version "written"), which a resumed plan consults. */
  readonly written: boolean;
  readonly location: string | null;
  /** What the writer's checks of the documents left for writing the batch, in entry order. Never saved. */
  readonly prepared?: readonly PreparedEntries[];
}

/** A deterministic key from the sorted line ids: the same lines always give the same key. */
export function batchKeyFor(lineIds: readonly string[]): string {
  const sorted = [...lineIds].sort();
  return `je-${createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 32)}`;
}

/**
 * Line ids by document id, in an object without a prototype: filled by assignment (several times faster than
 * Object.fromEntries for a batch's thousands of documents), where a document id such as "__proto__" is a key.
 */
export function documentLinesOf(
  documents: readonly { readonly documentId: string; readonly lineIds: readonly string[] }[],
): Record<string, readonly string[]> {
  const byDocument = Object.create(null) as Record<string, readonly string[]>;
  for (const document of documents) byDocument[document.documentId] = document.lineIds;
  return byDocument;
}
