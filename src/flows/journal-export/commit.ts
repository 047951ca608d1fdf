/**
 * Takes one saved plan to the end: write (idempotent by batch key) -> note it in the ledger -> mark exported
 * (idempotent by key) -> record the export batch ids. Each step is safe to repeat after a crash at any point:
 *  - before or during the write: the writer has no batch with this key (atomic write), so it writes it now;
 *  - after the write, before it was noted: the writer answers already_written;
 *  - during or after the export call: the same Idempotency-Key and body replay the original answer;
 *  - replay window passed, or someone else exported a line: 409, reconciled by re-reading the lines.
 */
import type { Logger } from 'pino';
import type { AccountingWriter } from '../../connector-contract/capabilities.js';
import { ConnectorError } from '../../connector-contract/errors.js';
import { addMoney } from '../../shared/decimal.js';
import { noteWrittenBatch, type StateStore, type WrittenBatch } from '../../state/index.js';
import { isExportConflict, lineStatuses, type JournalExportApi } from './api.js';
import { DeadLetterBook } from './dead-letters.js';
import { saveTargetMark } from './target-mark.js';
import { batchKeyFor, exportKeyFor, PlanStore, splitByDocument, type BatchPlan } from './plans.js';

export const LEDGER_FLOW = 'journal-export';
const MAX_RECONCILE_ROUNDS = 3;

export interface CommitContext {
  readonly state: StateStore;
  readonly api: JournalExportApi;
  readonly writer: AccountingWriter;
  readonly plans: PlanStore;
  readonly deadLetters: DeadLetterBook;
  readonly connectorName: string;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly counts: Record<string, number>;
}

export type CommitOutcome = 'exported' | 'refused';

function bump(counts: Record<string, number>, name: string, by = 1): void {
  counts[name] = (counts[name] ?? 0) + by;
}

export async function commitPlan(ctx: CommitContext, saved: BatchPlan): Promise<CommitOutcome> {
  const written = await writePlan(ctx, saved);
  if (written === null) return 'refused';
  await finishPlan(ctx, written);
  return 'exported';
}

/**
 * Puts a saved plan's batch in the target, unless it is there already. Returns the plan with its location, or null
 * when the target refused it (the refusal is then settled: split, or filed as a dead letter).
 */
export async function writePlan(ctx: CommitContext, plan: BatchPlan): Promise<BatchPlan | null> {
  if (plan.written) return plan;
  const noted = ctx.state.ledger.get(writtenKey(ctx, plan.batchKey));
  if (noted !== null) return { ...plan, written: true, location: noted.externalRef };
  return writeBatch(ctx, plan);
}

/** Marks a written plan's lines exported, records the export and drops the plan. */
export async function finishPlan(ctx: CommitContext, plan: BatchPlan): Promise<void> {
  ctx.signal.throwIfAborted();
  const exportBatchIds = await markExported(ctx, plan);
  const ledgerKey = { flow: LEDGER_FLOW, connector: ctx.connectorName, recordKey: plan.batchKey };
  ctx.state.transaction(() => {
    ctx.state.ledger.record({ ...ledgerKey, version: 'exported' }, exportBatchIds.join(','));
    ctx.plans.remove(plan.batchKey);
  });
  bump(ctx.counts, 'lines_exported', plan.lineIds.length);
  bump(ctx.counts, 'documents_exported', plan.documentIds.length);
  ctx.logger.info(
    { batchKey: plan.batchKey, lines: plan.lineIds.length, exportBatchIds, location: plan.location },
    'journal batch written and marked exported',
  );
}

/** What the batch put into the books, for the daily report: its documents, rows and debit totals. */
function writtenSummary(plan: BatchPlan, location: string, ctx: CommitContext): WrittenBatch {
  const debits: Record<string, string> = {};
  for (const entry of plan.batch.entries)
    if (entry.side === 'debit')
      debits[entry.currency] = addMoney(debits[entry.currency] ?? '0.00', entry.amount);
  return {
    at: ctx.state.clock.now(),
    location,
    references: [...new Set(plan.batch.entries.map((entry) => entry.reference))],
    rows: plan.batch.entries.length,
    debits,
  };
}

function writtenKey(ctx: CommitContext, batchKey: string) {
  return { flow: LEDGER_FLOW, connector: ctx.connectorName, recordKey: batchKey, version: 'written' };
}

/**
 * Writes the batch. When the target refuses it (bad input, nothing written), a batch of several documents is
 * replaced by one batch per document, so only the document at fault ends as a dead letter. That the batch is in
 * the target is noted in the ledger (the saved plan is not rewritten: it can be large).
 */
async function writeBatch(ctx: CommitContext, plan: BatchPlan): Promise<BatchPlan | null> {
  let location: string;
  try {
    // Documents whose lines are all zero leave nothing to write; their lines are still marked exported.
    const result =
      plan.batch.entries.length === 0
        ? { status: 'written' as const, location: 'no entries' }
        : await ctx.writer.writeJournalBatch(plan.batch, plan.prepared);
    bump(ctx.counts, result.status === 'written' ? 'batches_written' : 'batches_already_written');
    location = result.location;
  } catch (error) {
    const refused = error instanceof ConnectorError && error.code === 'connector_input_invalid';
    if (!refused || (await ctx.writer.hasBatch(plan.batchKey))) throw error;
    await handleRefusal(ctx, plan, error.message);
    return null;
  }
  ctx.state.transaction(() => {
    ctx.state.ledger.record(writtenKey(ctx, plan.batchKey), location);
    noteWrittenBatch(ctx.state.kv, ctx.connectorName, plan.batchKey, writtenSummary(plan, location, ctx));
    saveTargetMark(ctx.state, ctx.writer, ctx.connectorName);
  });
  return { ...plan, written: true, location };
}

async function handleRefusal(ctx: CommitContext, plan: BatchPlan, message: string): Promise<void> {
  ctx.logger.warn({ batchKey: plan.batchKey, error: message }, 'accounting target refused a journal batch');
  if (plan.documentIds.length > 1) {
    const parts = splitByDocument(plan, plan.createdAt);
    ctx.state.transaction(() => {
      for (const part of parts) ctx.plans.save(part);
      ctx.plans.remove(plan.batchKey);
    });
    bump(ctx.counts, 'batches_split');
    for (const part of parts) await commitPlan(ctx, part);
    return;
  }
  ctx.state.transaction(() => {
    for (const documentId of plan.documentIds) {
      ctx.deadLetters.file(
        documentId,
        'target_refused',
        `the accounting target refused the document: ${message}`,
        {
          batchKey: plan.batchKey,
        },
      );
    }
    ctx.plans.remove(plan.batchKey);
  });
  bump(ctx.counts, 'dead_lettered', plan.documentIds.length);
}

async function markExported(ctx: CommitContext, plan: BatchPlan): Promise<string[]> {
  try {
    const batches = await ctx.api.accounting.exportJournalLines(
      { journal_line_ids: [...plan.lineIds], target: plan.target, external_ref: plan.batchKey },
      { idempotencyKey: exportKeyFor(plan.batchKey), signal: ctx.signal },
    );
    return batches.map((batch) => batch.id);
  } catch (error) {
    if (!isExportConflict(error)) throw error;
    ctx.logger.warn(
      { batchKey: plan.batchKey },
      'export refused on the state of some lines; re-reading the lines to reconcile',
    );
    return reconcile(ctx, plan);
  }
}

/**
 * Re-reads the batch's lines: those already exported keep their export batch id, those still approved are
 * exported now (under a key derived from exactly those ids), and any line in neither state is filed as a dead
 * letter because it is in the target but cannot be marked. Never writes to the target again.
 */
async function reconcile(ctx: CommitContext, plan: BatchPlan): Promise<string[]> {
  bump(ctx.counts, 'reconciled');
  const ids = new Set(plan.lineIds);
  const exportBatchIds = new Set<string>();
  for (let round = 1; round <= MAX_RECONCILE_ROUNDS; round += 1) {
    const { exported, approved } = await lineStatuses(ctx.api, ids, plan.periods, ctx.signal);
    for (const batchId of exported.values()) if (batchId !== null) exportBatchIds.add(batchId);
    const rest = [...approved].sort();
    if (rest.length === 0) {
      fileLostLines(
        ctx,
        plan,
        [...ids].filter((id) => !exported.has(id)),
      );
      await countForeignExports(ctx, plan, exportBatchIds, exported);
      return [...exportBatchIds].sort();
    }
    try {
      const batches = await ctx.api.accounting.exportJournalLines(
        { journal_line_ids: rest, target: plan.target, external_ref: plan.batchKey },
        {
          idempotencyKey: `${exportKeyFor(plan.batchKey)}:rest-${batchKeyFor(rest).slice(3, 19)}`,
          signal: ctx.signal,
        },
      );
      for (const batch of batches) exportBatchIds.add(batch.id);
      const done = new Set([...exported.keys(), ...rest]);
      fileLostLines(
        ctx,
        plan,
        [...ids].filter((id) => !done.has(id)),
      );
      await countForeignExports(ctx, plan, exportBatchIds, exported);
      return [...exportBatchIds].sort();
    } catch (error) {
      if (!isExportConflict(error) || round === MAX_RECONCILE_ROUNDS) throw error;
    }
  }
  throw new Error(`reconciling batch ${plan.batchKey} did not settle`);
}

function fileLostLines(ctx: CommitContext, plan: BatchPlan, lineIds: readonly string[]): void {
  if (lineIds.length === 0) return;
  ctx.state.transaction(() => {
    for (const lineId of lineIds) {
      ctx.deadLetters.fileLine(
        lineId,
        `line is in the accounting target (batch ${plan.batchKey}, ${plan.location ?? 'target'}) but the API ` +
          'lists it neither as approved_for_export nor as exported; check it by hand',
        { batchKey: plan.batchKey },
      );
    }
  });
  bump(ctx.counts, 'dead_lettered', lineIds.length);
}

/** Lines another client exported (their batch's external_ref is not ours) are counted and logged. */
async function countForeignExports(
  ctx: CommitContext,
  plan: BatchPlan,
  batchIds: ReadonlySet<string>,
  exported: ReadonlyMap<string, string | null>,
): Promise<void> {
  const foreign = new Set<string>();
  for (const batchId of batchIds) {
    const batch = await ctx.api.accounting.getExport(batchId, { signal: ctx.signal });
    if (batch.external_ref !== plan.batchKey) foreign.add(batchId);
  }
  const lines = [...exported.values()].filter((id) => id !== null && foreign.has(id)).length;
  if (lines === 0) return;
  bump(ctx.counts, 'lines_exported_elsewhere', lines);
  ctx.logger.warn(
    { batchKey: plan.batchKey, lines, exportBatchIds: [...foreign] },
    'lines written by this batch had already been marked exported by another client',
  );
}
