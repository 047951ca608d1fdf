/**
 * Batch plans: a batch's lines, entries and export body, saved in the state store BEFORE anything is written to the
 * accounting target. After a crash the plan is resumed exactly as saved, so lines approved since then can never
 * change a batch that may already be in the target, and the export call is repeated with the same key and body.
 */
import { createHash } from 'node:crypto';
import type { JournalBatch } from '../../connectors/journal.js';
import type { StateStore } from '../../state/index.js';
import type { GroupEntry, MappedGroup } from './mapping.js';

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
  /** Set once the writer reported the batch in the target. */
  readonly written: boolean;
  readonly location: string | null;
}

/** A deterministic key from the sorted line ids: the same lines always give the same key. */
export function batchKeyFor(lineIds: readonly string[]): string {
  const sorted = [...lineIds].sort();
  return `je-${createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 32)}`;
}

/** The Idempotency-Key of the export call for a batch (the client appends :<chunk> when it splits). */
export function exportKeyFor(batchKey: string): string {
  return `journal-export:${batchKey}`;
}

/** Packs groups in order into batches of at most maxLines lines, never splitting a document. */
export function packGroups(
  groups: readonly Extract<MappedGroup, { ok: true }>[],
  maxLines: number,
): Extract<MappedGroup, { ok: true }>[][] {
  const batches: Extract<MappedGroup, { ok: true }>[][] = [];
  let current: Extract<MappedGroup, { ok: true }>[] = [];
  let size = 0;
  for (const group of groups) {
    const lines = group.group.lines.length;
    if (current.length > 0 && size + lines > maxLines) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(group);
    size += lines;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export function buildPlan(
  groups: readonly Extract<MappedGroup, { ok: true }>[],
  target: string,
  now: number,
): BatchPlan {
  const lineIds = groups.flatMap((g) => g.group.lines.map((line) => line.id)).sort();
  const batchKey = batchKeyFor(lineIds);
  const entries = groups
    .flatMap((g) => g.entries)
    .map((entry: GroupEntry, i) => ({ ...entry, lineNumber: i + 1 }));
  const periods = new Set(groups.flatMap((g) => g.group.lines.map((line) => line.accounting_period)));
  return {
    version: 1,
    batchKey,
    createdAt: now,
    lineIds,
    documentIds: groups.map((g) => g.group.documentId),
    documentLines: Object.fromEntries(
      groups.map((g) => [g.group.documentId, g.group.lines.map((line) => line.id).sort()]),
    ),
    periods: [...periods].sort(),
    batch: { batchKey, entries },
    target,
    written: false,
    location: null,
  };
}

/** One plan per document of `plan`, with the same entries (renumbered), for isolating a refused document. */
export function splitByDocument(plan: BatchPlan, now: number): BatchPlan[] {
  return plan.documentIds.map((documentId) => {
    const lineIds = [...(plan.documentLines[documentId] ?? [])].sort();
    const own = new Set(lineIds);
    const batchKey = batchKeyFor(lineIds);
    const entries = plan.batch.entries
      .filter((entry) => entry.sourceIds.some((id) => own.has(id)))
      .map((entry, i) => ({ ...entry, lineNumber: i + 1 }));
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

/** Plans of one job, kept in the state store's key-value table. */
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
    return this.state.kv
      .keys(this.#namespace)
      .map((key) => this.state.kv.get(this.#namespace, key))
      .filter(isPlan)
      .sort((a, b) => a.createdAt - b.createdAt || (a.batchKey < b.batchKey ? -1 : 1));
  }

  save(plan: BatchPlan): void {
    this.state.kv.set(this.#namespace, plan.batchKey, plan);
  }

  remove(batchKey: string): void {
    this.state.kv.delete(this.#namespace, batchKey);
  }
}

function isPlan(value: unknown): value is BatchPlan {
  if (value === null || typeof value !== 'object') return false;
  const plan = value as Record<string, unknown>;
  return plan['version'] === 1 && typeof plan['batchKey'] === 'string' && Array.isArray(plan['lineIds']);
}
