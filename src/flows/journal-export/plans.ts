/**
 * Batch plans: a batch's lines, entries and export body, saved in the state store BEFORE anything is written to the
 * accounting target. After a crash the plan is resumed exactly as saved, so lines approved since then can never
 * change a batch that may already be in the target, and the export call is repeated with the same key and body.
 */
import type { JournalEntry, PreparedEntries } from '../../connector-contract/journal.js';
import type { StateStore } from '../../state/index.js';
import { batchKeyFor, documentLinesOf, type BatchPlan } from './batch-plan.js';
import { numberedEntry, type GroupEntry, type MappedGroup } from '../shared/journal-mapping/mapping.js';
import { decodePlan, StoredPlanError, storedPlanText } from './stored-plan.js';

// The plan's shape and key live in batch-plan.ts, so that stored-plan.ts (which PlanStore uses) needs nothing here.
export { batchKeyFor, type BatchPlan } from './batch-plan.js';

type ReadyGroup = Extract<MappedGroup, { ok: true }>;

/** The Idempotency-Key of the export call for a batch (the client appends :<chunk> when it splits). */
export function exportKeyFor(batchKey: string): string {
  return `journal-export:${batchKey}`;
}

/** Packs items as they come into batches of at most maxLines lines, never splitting one item (a document). */
export class BatchPacker<T> {
  #items: T[] = [];
  #lines = 0;

  constructor(
    private readonly maxLines: number,
    private readonly linesOf: (item: T) => number,
  ) {}

  /** Adds an item; returns the batch it closed when it did not fit in the open one. */
  add(item: T): T[] | null {
    const lines = this.linesOf(item);
    const closed = this.#items.length > 0 && this.#lines + lines > this.maxLines ? this.take() : null;
    this.#items.push(item);
    this.#lines += lines;
    return closed;
  }

  /** The open batch (possibly empty), which then starts afresh. */
  take(): T[] {
    const items = this.#items;
    this.#items = [];
    this.#lines = 0;
    return items;
  }
}

/** What a batch needs of one mapped document: its ids, dates and entries, without the lines themselves. */
export interface PlannedDocument {
  readonly documentId: string;
  readonly docDate: string;
  /** Sorted. */
  readonly lineIds: readonly string[];
  readonly periods: readonly string[];
  readonly entries: readonly GroupEntry[];
  /** What the writer's check of the entries left for writing them (see select.ts); null when nothing. */
  readonly prepared: PreparedEntries | null;
}

/** The document `mapped` as a batch needs it; `prepared` is what the writer's check of its entries left. */
export function plannedDocument(
  mapped: ReadyGroup,
  { prepared }: { readonly prepared: PreparedEntries | null } = { prepared: null },
): PlannedDocument {
  const { group } = mapped;
  return {
    documentId: group.documentId,
    docDate: group.lines[0]?.doc_date ?? '',
    lineIds: group.lines.map((line) => line.id).sort(),
    periods: [...new Set(group.lines.map((line) => line.accounting_period))],
    entries: mapped.entries,
    prepared,
  };
}

/** The plan of one batch; its entries follow the documents by date, then id. */
export function buildPlan(unordered: readonly PlannedDocument[], target: string, now: number): BatchPlan {
  const documents = [...unordered].sort(
    (a, b) => compare(a.docDate, b.docDate) || compare(a.documentId, b.documentId),
  );
  const lineIds: string[] = [];
  const entries: JournalEntry[] = [];
  const periods = new Set<string>();
  const prepared: PreparedEntries[] = [];
  let preparedWhole = true;
  for (const document of documents) {
    lineIds.push(...document.lineIds);
    for (const entry of document.entries) entries.push(numberedEntry(entry, entries.length + 1));
    for (const period of document.periods) periods.add(period);
    if (document.prepared !== null) prepared.push(document.prepared);
    else if (document.entries.length > 0) preparedWhole = false;
  }
  lineIds.sort();
  const batchKey = batchKeyFor(lineIds);
  return {
    version: 1,
    batchKey,
    createdAt: now,
    lineIds,
    documentIds: documents.map((d) => d.documentId),
    documentLines: documentLinesOf(documents),
    periods: [...periods].sort(),
    batch: { batchKey, entries },
    target,
    written: false,
    location: null,
    ...(preparedWhole && prepared.length > 0 ? { prepared } : {}),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One plan per document of `plan`, with the same entries (renumbered), for isolating a refused document. */
export function splitByDocument(whole: BatchPlan, now: number): BatchPlan[] {
  const { prepared: _prepared, ...plan } = whole;
  return plan.documentIds.map((documentId) => {
    const lineIds = [...(plan.documentLines[documentId] ?? [])].sort();
    const own = new Set(lineIds);
    const batchKey = batchKeyFor(lineIds);
    const entries = plan.batch.entries
      .filter((entry) => entry.sourceIds.some((id) => own.has(id)))
      .map((entry, i) => numberedEntry(entry, i + 1));
    return {
      ...plan,
      batchKey,
      createdAt: now,
      lineIds,
      documentIds: [documentId],
      documentLines: { [documentId]: lineIds },
      batch: { batchKey, entries },
      written: false,
      location: null,
    };
  });
}

/** Plans of one job, kept in the state store's key-value table in their stored form (stored-plan.ts). */
export class PlanStore {
  readonly #namespace: string;

  constructor(
    private readonly state: StateStore,
    jobName: string,
  ) {
    this.#namespace = `journal-export:${jobName}:plans`;
  }

  /** Pending plans, oldest first. */
  list(): BatchPlan[] {
    return this.keys()
      .map((key) => this.get(key))
      .filter((plan) => plan !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt || (a.batchKey < b.batchKey ? -1 : 1));
  }

  /** Batch keys of the pending plans, readable or not. */
  keys(): string[] {
    return this.state.kv.keys(this.#namespace);
  }

  /** The pending plan saved under `batchKey`, undefined if none; throws StoredPlanError if it cannot be read. */
  get(batchKey: string): BatchPlan | undefined {
    let stored: unknown;
    try {
      stored = this.state.kv.get(this.#namespace, batchKey);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      throw new StoredPlanError(`the saved plan ${batchKey} is not valid JSON; it is damaged`);
    }
    return stored === undefined ? undefined : decodePlan(stored, batchKey);
  }

  save(plan: BatchPlan): void {
    this.state.kv.setJson(this.#namespace, plan.batchKey, storedPlanText(plan));
  }

  remove(batchKey: string): void {
    this.state.kv.delete(this.#namespace, batchKey);
  }
}
