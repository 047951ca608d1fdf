/**
 * The journal-export job: resume saved batch plans, pull approved lines, sort documents into ready and dead
 * letters, save each new batch plan, then write and mark it exported (see commit.ts for the crash analysis).
 */
import { resolve } from 'node:path';
import type { AccountingWriter } from '../../connectors/capabilities.js';
import type { Job, JobContext, RunResult } from '../../engine/index.js';
import { errorMessage, RunBudget } from '../../engine/index.js';
import { pullApprovedLines, type JournalExportApi } from './api.js';
import { commitPlan, type CommitContext } from './commit.js';
import { DeadLetterBook } from './dead-letters.js';
import { GroupMapper, type MappingTables } from './mapping.js';
import { journalExportOptionsSchema, type JournalExportOptionsInput } from './options.js';
import { buildPlan, packGroups, PlanStore, type BatchPlan } from './plans.js';
import { writePreview } from './preview.js';
import { selectGroups, type ReadyGroup, type Selection } from './select.js';

export interface JournalExportJobInput {
  /** The job's name in the config; names its plans and dead letters. */
  readonly name: string;
  readonly api: JournalExportApi;
  readonly writer: AccountingWriter;
  /** jobs.<name>.options, validated here with journalExportOptionsSchema. */
  readonly options?: JournalExportOptionsInput;
  /** The config's `mappings:` tables. */
  readonly mappings?: MappingTables;
  /** The accounting connector's name, for the ledger and the export's `target` label. Defaults to the job name. */
  readonly connectorName?: string;
}

export function createJournalExportJob(input: JournalExportJobInput): Job {
  const options = journalExportOptionsSchema.parse(input.options ?? {});
  const mapper = new GroupMapper(options, input.mappings ?? {});
  const connectorName = input.connectorName ?? input.name;
  const target = options.target ?? connectorName;
  const previewFile = resolve(options.preview_path);

  async function run(ctx: JobContext): Promise<RunResult> {
    const counts: Record<string, number> = {};
    const plans = new PlanStore(ctx.state, input.name);
    const deadLetters = new DeadLetterBook(ctx.state, input.name);
    const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
    const commit: CommitContext = {
      state: ctx.state,
      api: input.api,
      writer: input.writer,
      plans,
      deadLetters,
      connectorName,
      logger: ctx.logger,
      signal: ctx.signal,
      counts,
    };
    try {
      if (ctx.dryRun) return await dryRun(ctx, plans, deadLetters, counts);
      for (const plan of plans.list()) {
        if (budget.stopReason() !== null) return { outcome: 'partial', counts };
        counts['batches_resumed'] = (counts['batches_resumed'] ?? 0) + 1;
        await commitPlan(commit, plan);
      }
      const pulled = await pullApprovedLines(input.api, options, ctx.signal);
      counts['lines_fetched'] = pulled.lines.size;
      counts['quarantined'] = pulled.quarantined;
      const selection = await selectGroups(pulled.lines.values(), mapper, input.writer, deadLetters);
      fileFailures(ctx, deadLetters, selection, counts);
      counts['documents_skipped'] = selection.skipped;
      for (const groups of batchesOf(selection, options.max_lines_per_batch)) {
        if (budget.stopReason() !== null) return { outcome: 'partial', counts };
        const plan = buildPlan(groups, target, ctx.clock.now());
        ctx.state.transaction(() => {
          plans.save(plan);
          for (const group of groups) deadLetters.resolve(group.group.documentId);
        });
        counts['batches_planned'] = (counts['batches_planned'] ?? 0) + 1;
        await commitPlan(commit, plan);
      }
      return { outcome: 'ok', counts };
    } catch (error) {
      if (ctx.signal.aborted) return { outcome: 'partial', counts };
      ctx.logger.error({ err: errorMessage(error) }, 'journal export run failed');
      return { outcome: 'failed', counts, error: errorMessage(error) };
    }
  }

  async function dryRun(
    ctx: JobContext,
    plans: PlanStore,
    deadLetters: DeadLetterBook,
    counts: Record<string, number>,
  ): Promise<RunResult> {
    const pending = plans.list();
    const pendingIds = new Set(pending.flatMap((plan) => plan.lineIds));
    const pulled = await pullApprovedLines(input.api, options, ctx.signal);
    const lines = [...pulled.lines.values()].filter((line) => !pendingIds.has(line.id));
    const selection = await selectGroups(lines, mapper, input.writer, deadLetters);
    const previewPlans = batchesOf(selection, options.max_lines_per_batch).map((groups) =>
      buildPlan(groups, target, ctx.clock.now()),
    );
    await writePreview(previewFile, previewPlans, selection, pending.length, ctx.clock.now());
    counts['lines_fetched'] = pulled.lines.size;
    counts['batches_previewed'] = previewPlans.length;
    counts['lines_previewed'] = previewPlans.reduce((n, plan) => n + plan.lineIds.length, 0);
    counts['dead_letters_previewed'] = selection.failed.length;
    counts['batches_pending'] = pending.length;
    ctx.logger.info({ previewFile, ...counts }, 'journal export dry run: preview written, nothing exported');
    return { outcome: 'ok', counts };
  }

  return { name: input.name, run };
}

function batchesOf(selection: Selection, maxLines: number): ReadyGroup[][] {
  return [...packGroups(selection.ready, maxLines), ...selection.isolated.map((group) => [group])];
}

function fileFailures(
  ctx: JobContext,
  deadLetters: DeadLetterBook,
  selection: Selection,
  counts: Record<string, number>,
): void {
  if (selection.failed.length === 0) return;
  ctx.state.transaction(() => {
    for (const failure of selection.failed) {
      deadLetters.file(failure.group.documentId, failure.kind, failure.reason, {
        lines: failure.group.lines,
      });
    }
  });
  counts['dead_lettered'] = (counts['dead_lettered'] ?? 0) + selection.failed.length;
  ctx.logger.warn({ documents: selection.failed.length }, 'journal documents filed as dead letters');
}

export type { BatchPlan };
