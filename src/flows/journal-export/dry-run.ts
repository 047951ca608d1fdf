/**
 * The dry run: the same pull and walk as a real run, with each batch that would be planned appended to the preview
 * file instead, and the dead letters that would be filed listed after them. Nothing is written to the target,
 * nothing is marked exported, and the state file is not changed. Lines of plans still pending are left out: the
 * next real run finishes those first.
 */
import type { AccountingWriter } from '../../connector-contract/capabilities.js';
import type { JobContext, RunResult } from '../../engine/index.js';
import type { JournalExportApi } from './api.js';
import type { DeadLetterBook } from './dead-letters.js';
import { documentGroup, type GroupMapper } from '../shared/journal-mapping/mapping.js';
import type { JournalExportOptions } from '../shared/journal-mapping/options.js';
import { BatchPacker, buildPlan, plannedDocument, type PlannedDocument, type PlanStore } from './plans.js';
import { PreviewWriter } from './preview.js';
import { allMissingOf, GroupSelector } from './select.js';
import { countHeldBackForEach, type HeldBackReasons } from '../shared/held-back.js';
import { bump, withStagedLines } from './staged-run.js';
import { checkTargetMark } from './target-mark.js';

export interface PreviewDeps {
  readonly api: JournalExportApi;
  readonly writer: AccountingWriter;
  readonly options: JournalExportOptions;
  readonly mapper: GroupMapper;
  readonly target: string;
  /** The accounting connector, under which the state keeps its target's mark. */
  readonly connectorName: string;
  readonly previewFile: string;
  /** Documents that would be held for a missing mapping, by that mapping. */
  readonly held: HeldBackReasons;
}

export async function previewRun(
  deps: PreviewDeps,
  ctx: JobContext,
  plans: PlanStore,
  deadLetters: DeadLetterBook,
  counts: Record<string, number>,
): Promise<RunResult> {
  // A target the real run would fail on fails the dry run too, before any preview is written.
  await deps.writer.checkTarget?.();
  await checkTargetMark(ctx.state, deps.writer, deps.connectorName);
  const pending = plans.list();
  const pendingIds = new Set(pending.flatMap((plan) => plan.lineIds));
  const preview = await PreviewWriter.open(deps.previewFile, pending.length, ctx.clock.now());
  try {
    await withStagedLines(deps.api, deps.options, ctx.signal, counts, async (documents) => {
      const selector = new GroupSelector(deps.mapper, deps.writer, deadLetters);
      const packer = new BatchPacker<PlannedDocument>(
        deps.options.max_lines_per_batch,
        (d) => d.lineIds.length,
      );
      const previewBatch = async (batch: readonly PlannedDocument[]) => {
        if (batch.length === 0) return;
        const plan = buildPlan(batch, deps.target, ctx.clock.now());
        await preview.batch(plan);
        bump(counts, 'batches_previewed');
        bump(counts, 'lines_previewed', plan.lineIds.length);
        bump(counts, 'documents_previewed', plan.documentIds.length);
      };
      for (const document of documents) {
        ctx.signal.throwIfAborted();
        const lines = document.lines.filter((line) => !pendingIds.has(line.id));
        if (lines.length === 0) continue;
        const decision = await selector.decide(documentGroup(document.documentId, lines));
        if (decision.outcome === 'failed') {
          await preview.deadLetter(decision.failure);
          bump(counts, 'dead_letters_previewed');
          countHeldBackForEach(deps.held, allMissingOf(decision.failure));
        } else if (decision.outcome === 'isolated') await previewBatch([plannedDocument(decision.mapped)]);
        else if (decision.outcome === 'ready') {
          await previewBatch(packer.add(plannedDocument(decision.mapped)) ?? []);
        }
      }
      await previewBatch(packer.take());
    });
    await preview.finish();
  } catch (error) {
    await preview.abandon();
    throw error;
  }
  counts['batches_previewed'] ??= 0;
  counts['lines_previewed'] ??= 0;
  counts['dead_letters_previewed'] ??= 0;
  counts['documents_previewed'] ??= 0;
  counts['batches_pending'] = pending.length;
  ctx.logger.info(
    { previewFile: deps.previewFile, ...counts },
    'journal export dry run: preview written, nothing exported',
  );
  return { outcome: 'ok', counts };
}
