/**
 * The journal-export job: resume saved batch plans, stage the approved lines on disk page by page, then walk them
 * document by document: each document is sorted into a batch or a dead letter, and each batch plan is saved, written
 * and marked exported as soon as it is full (see commit.ts for the crash analysis). Memory stays about one batch.
 */
import { resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AccountingWriter } from '../../connector-contract/capabilities.js';
import type { Job, JobContext, RunResult } from '../../engine/index.js';
import { errorMessage, RunBudget } from '../../engine/index.js';
import type { JournalExportApi } from './api.js';
import { commitPlan, type CommitContext } from './commit.js';
import { DeadLetterBook, type LetterState } from './dead-letters.js';
import {
  documentGroup,
  GroupMapper,
  validateTables,
  type MappingTables,
} from '../shared/journal-mapping/mapping.js';
import type { JournalExportOptions } from '../shared/journal-mapping/options.js';
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
import { allMissingOf, GroupSelector, type Decision, type FailedGroup } from './select.js';
import { countHeldBackForEach, type HeldBackReasons } from '../shared/held-back.js';
import { bump, withStagedLines } from './staged-run.js';
import { verifyTargetMark } from './target-mark.js';
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

/**
 * The walk hands the event loop back after about this many lines. Deciding a document resolves in promise
 * continuations only, so without a turn of the loop a batch of 5,000 lines was mapped, checked and saved in one
 * stretch of 100-200 ms, and the control API (whose commands take several turns) waited for each of them.
 */
const LINES_PER_TURN = 250;

/** A document headed for a batch, and its earlier dead letter (resolved once the batch is planned). */
interface Planned {
  readonly document: PlannedDocument;
  readonly letter: LetterState | null;
}

/** What every run of the job uses, read from its options once. */
interface JournalExportSetup {
  readonly input: JournalExportJobInput;
  readonly options: JournalExportOptions;
  readonly connectorName: string;
  readonly target: string;
  readonly previewFile: string;
}

/** The setup and the mapper of one run, made from the mappings as they are when the run starts. */
interface RunSetup extends JournalExportSetup {
  readonly mapper: GroupMapper;
}

/** One run's walk of the staged documents, as it plans and commits batches. */
interface Walk {
  readonly ctx: JobContext;
  readonly commit: CommitContext;
  readonly budget: RunBudget;
  readonly target: string;
  readonly pipeline: CommitPipeline;
  /** Documents that failed, not filed as dead letters yet. */
  readonly failures: FailedGroup[];
  /** Documents filed for a missing mapping, by that mapping. */
  readonly held: HeldBackReasons;
}

export function createJournalExportJob(input: JournalExportJobInput): Job {
  // The options' tables are checked when the job is built, so a bad config fails the start (and a reload).
  validateTables(input.options, input.mappings ?? {});
  const setup = setupOf(input);
  // The mapper is made at each run: a config reload of the mappings applies from the next run on.
  return {
    name: input.name,
    run: async (ctx) =>
      runJournalExport({ ...setup, mapper: new GroupMapper(setup.options, input.mappings ?? {}) }, ctx),
  };
}

function setupOf(input: JournalExportJobInput): JournalExportSetup {
  const { options } = input;
  const connectorName = input.connectorName ?? input.name;
  const target = options.target ?? connectorName;
  return { input, options, connectorName, target, previewFile: resolve(options.preview_path) };
}

async function runJournalExport(setup: RunSetup, ctx: JobContext): Promise<RunResult> {
  const counts: Record<string, number> = {};
  const held: HeldBackReasons = {};
  const result = await exportRun(setup, ctx, counts, held);
  const tally = {
    unit: 'documents',
    delivered: counts['documents_exported'] ?? counts['documents_previewed'] ?? 0,
    heldBack: counts['dead_lettered'] ?? counts['dead_letters_previewed'] ?? 0,
    reasons: held,
  };
  return { ...result, tally };
}

async function exportRun(
  setup: RunSetup,
  ctx: JobContext,
  counts: Record<string, number>,
  held: HeldBackReasons,
): Promise<RunResult> {
  const { input, options } = setup;
  const plans = new PlanStore(ctx.state, input.name);
  const deadLetters = new DeadLetterBook(ctx.state, input.name);
  try {
    if (ctx.dryRun) {
      const { mapper, target, previewFile, connectorName } = setup;
      const preview = {
        api: input.api,
        writer: input.writer,
        options,
        mapper,
        target,
        connectorName,
        previewFile,
        held,
      };
      return await previewRun(preview, ctx, plans, deadLetters, counts);
    }
    const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
    const commit: CommitContext = {
      state: ctx.state,
      api: input.api,
      writer: input.writer,
      plans,
      deadLetters,
      connectorName: setup.connectorName,
      logger: ctx.logger,
      signal: ctx.signal,
      counts,
    };
    // Before anything is written: a target that is not the one written to before fails the run here.
    await verifyTargetMark(ctx.state, input.writer, setup.connectorName);
    if (!(await resumeSavedPlans(commit, budget))) return { outcome: 'partial', counts };
    const outcome = await withStagedLines(input.api, options, ctx.signal, counts, (documents) =>
      exportDocuments(setup, ctx, documents, { commit, budget, held }),
    );
    return { outcome, counts };
  } catch (error) {
    if (ctx.signal.aborted) return { outcome: 'partial', counts };
    ctx.logger.error({ err: errorMessage(error) }, 'journal export run failed');
    return { outcome: 'failed', counts, error: errorMessage(error) };
  }
}

/** Commits the plans saved by earlier runs, oldest first; false when the budget ran out first. */
async function resumeSavedPlans(commit: CommitContext, budget: RunBudget): Promise<boolean> {
  for (const plan of commit.plans.list()) {
    if (budget.stopReason() !== null) return false;
    bump(commit.counts, 'batches_resumed');
    await commitPlan(commit, plan);
  }
  return true;
}

async function exportDocuments(
  setup: RunSetup,
  ctx: JobContext,
  documents: Iterable<StagedDocument>,
  { commit, budget, held }: { commit: CommitContext; budget: RunBudget; held: HeldBackReasons },
): Promise<'ok' | 'partial'> {
  const selector = new GroupSelector(setup.mapper, setup.input.writer, commit.deadLetters);
  const packer = new BatchPacker<Planned>(setup.options.max_lines_per_batch, linesOf);
  const pipeline = new CommitPipeline(commit);
  const walk: Walk = { ctx, commit, budget, target: setup.target, pipeline, failures: [], held };
  let linesSinceTurn = 0;
  try {
    for (const document of documents) {
      linesSinceTurn += document.lines.length;
      if (linesSinceTurn >= LINES_PER_TURN) {
        linesSinceTurn = 0;
        await nextTurn();
      }
      ctx.signal.throwIfAborted();
      const decision = await selector.decide(documentGroup(document.documentId, document.lines));
      if (decision.outcome === 'skip') bump(commit.counts, 'documents_skipped');
      else if (decision.outcome === 'failed') holdFailure(walk, decision.failure);
      else if (decision.outcome === 'isolated') {
        if (!(await planBatch(walk, [planned(decision)]))) return 'partial';
      } else if (!(await planBatch(walk, packer.add(planned(decision)) ?? []))) return 'partial';
    }
    if (!(await planBatch(walk, packer.take()))) return 'partial';
    await pipeline.drain();
    return 'ok';
  } finally {
    await pipeline.settle();
    if (walk.failures.length > 0) ctx.state.transaction(() => fileFailures(walk));
  }
}

/** Keeps a failed document to be filed with the next plan saved, or now once there are many. */
function holdFailure(walk: Walk, failure: FailedGroup): void {
  walk.failures.push(failure);
  if (walk.failures.length >= FAILURES_PER_FILING) walk.ctx.state.transaction(() => fileFailures(walk));
}

/** Saves and commits a closed batch; false when the budget ran out before it was planned. */
async function planBatch(walk: Walk, batch: Planned[]): Promise<boolean> {
  if (batch.length === 0) return true;
  // Saving encodes and stores the whole plan at once: it starts on a turn of its own, not after a stretch of mapping.
  await nextTurn();
  if (walk.budget.stopReason() !== null) return false;
  await walk.pipeline.commit(savePlan(walk, batch));
  return true;
}

/** Saves the plan of a closed batch (emptying `batch`, whose documents are not needed once planned). */
function savePlan(walk: Walk, batch: Planned[]): BatchPlan {
  const { ctx, commit } = walk;
  const items = batch.splice(0);
  const saved = buildPlan(
    items.map((item) => item.document),
    walk.target,
    ctx.clock.now(),
  );
  ctx.state.transaction(() => {
    commit.plans.save(saved);
    for (const { document, letter } of items) {
      if (letter?.status === 'open' || letter?.status === 'retrying') {
        commit.deadLetters.resolve(document.documentId);
      }
    }
    fileFailures(walk);
  });
  bump(commit.counts, 'batches_planned');
  return saved;
}

function linesOf(item: Planned): number {
  return item.document.lineIds.length;
}

function planned(decision: Extract<Decision, { outcome: 'ready' | 'isolated' }>): Planned {
  return { document: plannedDocument(decision.mapped, decision), letter: decision.letter };
}

/** Files the walk's failed documents as dead letters; call inside a transaction. */
function fileFailures(walk: Walk): void {
  const failures = walk.failures.splice(0);
  if (failures.length === 0) return;
  for (const failure of failures) {
    walk.commit.deadLetters.file(failure.group.documentId, failure.kind, failure.reason, {
      lines: failure.group.lines,
      missing: failure.missing,
    });
    countHeldBackForEach(walk.held, allMissingOf(failure));
  }
  bump(walk.commit.counts, 'dead_lettered', failures.length);
  walk.ctx.logger.warn({ documents: failures.length }, 'journal documents filed as dead letters');
}

export type { BatchPlan };
