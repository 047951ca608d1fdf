/**
 * The journal-export job: resume saved batch plans, stage the approved lines on disk page by page, then walk them
 * document by document: each document is sorted into a batch or a dead letter, and each batch plan is saved, written
 * and marked exported as soon as it is full (see commit.ts for the crash analysis). Memory stays about one batch.
 */
import { resolve } from 'node:path';
import type { AccountingWriter } from '../../connector-contract/capabilities.js';
import type { Job, JobContext, RunResult } from '../../engine/index.js';
import { errorMessage, RunBudget } from '../../engine/index.js';
import type { JournalExportApi } from './api.js';
import { commitPlan, type CommitContext } from './commit.js';
import { DeadLetterBook, type LetterState } from './dead-letters.js';
import { documentGroup, GroupMapper, type MappingTables } from './mapping.js';
import type { JournalExportOptions } from './options.js';
import { CommitPipeline } from './pipeline.js';
import { previewRun } from './dry-run.js';
import {
  BatchPacker,
  buildPlan,
  plannedDocument,
  PlanStore,
  type BatchPlan,
  type PlannedDocument,
} from './plans.js';
import { GroupSelector, type Decision, type FailedGroup } from './select.js';
import { bump, withStagedLines } from './staged-run.js';
import type { StagedDocument } from './staging.js';

export interface JournalExportJobInput {
  /** The job's name in the config; names its plans and dead letters. */
  readonly name: string;
  readonly api: JournalExportApi;
  readonly writer: AccountingWriter;
  /** jobs.<name>.options as journalExportOptionsSchema parsed them. */
  readonly options: JournalExportOptions;
  /** The config's `mappings:` tables. */
  readonly mappings?: MappingTables;
  /** The accounting connector's name, for the ledger and the export's `target` label. Defaults to the job name. */
  readonly connectorName?: string;
}

/** Dead letters are filed in groups of at most this many, so a run of failures never piles up in memory. */
const FAILURES_PER_FILING = 500;

/** A document headed for a batch, and its earlier dead letter (resolved once the batch is planned). */
interface Planned {
  readonly document: PlannedDocument;
  readonly letter: LetterState | null;
}

export function createJournalExportJob(input: JournalExportJobInput): Job {
  const { options } = input;
  const mapper = new GroupMapper(options, input.mappings ?? {});
  const connectorName = input.connectorName ?? input.name;
  const target = options.target ?? connectorName;
  const previewFile = resolve(options.preview_path);

  async function run(ctx: JobContext): Promise<RunResult> {
    const counts: Record<string, number> = {};
    const plans = new PlanStore(ctx.state, input.name);
    const deadLetters = new DeadLetterBook(ctx.state, input.name);
    try {
      if (ctx.dryRun) {
        const preview = { api: input.api, writer: input.writer, options, mapper, target, previewFile };
        return await previewRun(preview, ctx, plans, deadLetters, counts);
      }
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
      for (const plan of plans.list()) {
        if (budget.stopReason() !== null) return { outcome: 'partial', counts };
        bump(counts, 'batches_resumed');
        await commitPlan(commit, plan);
      }
      const outcome = await withStagedLines(input.api, options, ctx.signal, counts, (documents) =>
        exportDocuments(ctx, documents, commit, budget),
      );
      return { outcome, counts };
    } catch (error) {
      if (ctx.signal.aborted) return { outcome: 'partial', counts };
      ctx.logger.error({ err: errorMessage(error) }, 'journal export run failed');
      return { outcome: 'failed', counts, error: errorMessage(error) };
    }
  }

  async function exportDocuments(
    ctx: JobContext,
    documents: Iterable<StagedDocument>,
    commit: CommitContext,
    budget: RunBudget,
  ): Promise<'ok' | 'partial'> {
    const selector = new GroupSelector(mapper, input.writer, commit.deadLetters);
    const packer = new BatchPacker<Planned>(options.max_lines_per_batch, linesOf);
    const pipeline = new CommitPipeline(commit);
    const failures: FailedGroup[] = [];
    /** Saves the plan of a closed batch (emptying `batch`, whose documents are not needed once planned). */
    const save = (batch: Planned[]): BatchPlan => {
      const items = batch.splice(0);
      const saved = buildPlan(
        items.map((item) => item.document),
        target,
        ctx.clock.now(),
      );
      ctx.state.transaction(() => {
        commit.plans.save(saved);
        for (const { document, letter } of items) {
          if (letter?.status === 'open' || letter?.status === 'retrying') {
            commit.deadLetters.resolve(document.documentId);
          }
        }
        fileFailures(ctx, commit.deadLetters, failures.splice(0), commit.counts);
      });
      bump(commit.counts, 'batches_planned');
      return saved;
    };
    const plan = async (batch: Planned[]): Promise<boolean> => {
      if (batch.length === 0) return true;
      if (budget.stopReason() !== null) return false;
      await pipeline.commit(save(batch));
      return true;
    };
    try {
      for (const document of documents) {
        ctx.signal.throwIfAborted();
        const decision = await selector.decide(documentGroup(document.documentId, document.lines));
        if (decision.outcome === 'skip') bump(commit.counts, 'documents_skipped');
        else if (decision.outcome === 'failed') {
          failures.push(decision.failure);
          if (failures.length >= FAILURES_PER_FILING) {
            ctx.state.transaction(() =>
              fileFailures(ctx, commit.deadLetters, failures.splice(0), commit.counts),
            );
          }
        } else if (decision.outcome === 'isolated') {
          if (!(await plan([planned(decision)]))) return 'partial';
        } else if (!(await plan(packer.add(planned(decision)) ?? []))) return 'partial';
      }
      if (!(await plan(packer.take()))) return 'partial';
      await pipeline.drain();
      return 'ok';
    } finally {
      await pipeline.settle();
      if (failures.length > 0) {
        ctx.state.transaction(() => fileFailures(ctx, commit.deadLetters, failures.splice(0), commit.counts));
      }
    }
  }

  return { name: input.name, run };
}

function linesOf(item: Planned): number {
  return item.document.lineIds.length;
}

function planned(decision: Extract<Decision, { outcome: 'ready' | 'isolated' }>): Planned {
  return { document: plannedDocument(decision.mapped, decision), letter: decision.letter };
}

/** Files dead letters; call inside a transaction. */
function fileFailures(
  ctx: JobContext,
  deadLetters: DeadLetterBook,
  failures: readonly FailedGroup[],
  counts: Record<string, number>,
): void {
  if (failures.length === 0) return;
  for (const failure of failures) {
    deadLetters.file(failure.group.documentId, failure.kind, failure.reason, { lines: failure.group.lines });
  }
  bump(counts, 'dead_lettered', failures.length);
  ctx.logger.warn({ documents: failures.length }, 'journal documents filed as dead letters');
}

export type { BatchPlan };
