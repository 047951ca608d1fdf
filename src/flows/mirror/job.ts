/**
 * The mirror job: make sure every selected table exists, backfill through a bulk export on a first run when the
 * plan allows it, then pull each resource into its table (one stream per resource).
 */
import type { Dispatcher } from 'undici';
import type { ApiClient } from '../../client/index.js';
import type { MirrorSink } from '../../connector-contract/index.js';
import { RunBudget, errorMessage, type Job, type JobContext, type RunResult } from '../../engine/index.js';
import { tallyOf } from '../shared/held-back.js';
import { runBackfill, type BackfillInput, type BackfillTarget } from './backfill.js';
import type { MirrorOptions } from './options.js';
import { pullResource } from './pull-stream.js';
import { refreshList } from './refresh-list.js';
import { mirrorResource, type ListResource, type MirrorResource, type PagedResource } from './resources.js';
import { mirrorTable, type MirrorTable } from './tables.js';

export interface MirrorJobInput {
  /** The job's name: names its streams, dead letters and backfill state. */
  readonly name: string;
  readonly api: ApiClient;
  readonly sink: MirrorSink;
  /** jobs.<name>.options as mirrorOptionsSchema parsed them. */
  readonly options: MirrorOptions;
  /** For export downloads; undici's global dispatcher by default. */
  readonly dispatcher?: () => Promise<Dispatcher>;
}

interface Selected {
  resource: MirrorResource;
  table: MirrorTable;
}

type Outcome = RunResult['outcome'];

function isExportable(resource: MirrorResource): resource is PagedResource & { exportName: string } {
  return resource.mode !== 'list' && resource.exportName !== undefined;
}

/** ok < skipped < partial < failed, except that failed plus progress elsewhere is partial. */
function combine(outcomes: readonly Outcome[]): Outcome {
  if (outcomes.length === 0) return 'ok';
  const failed = outcomes.filter((o) => o === 'failed').length;
  if (failed === outcomes.length) return 'failed';
  if (failed > 0 || outcomes.includes('partial')) return 'partial';
  if (outcomes.every((o) => o === 'skipped')) return 'skipped';
  return outcomes.includes('skipped') ? 'partial' : 'ok';
}

/** What the steps of one run share. */
interface MirrorRun {
  readonly input: MirrorJobInput;
  readonly ctx: JobContext;
  readonly budget: RunBudget;
  readonly counts: Record<string, number>;
  /** One per selected resource, in order. */
  readonly outcomes: Outcome[];
  readonly errors: string[];
  /** What the backfill, the list refresh and the pull all take. */
  readonly base: Pick<BackfillInput, 'job' | 'api' | 'sink' | 'state' | 'clock'>;
}

/** Whether exportable resources wait for an unfinished export, or why the backfill failed the run. */
type BackfillStep = { readonly waitForExport: boolean } | { readonly failed: string };

export function createMirrorJob(input: MirrorJobInput): Job {
  const selected = selectedResources(input.options);
  return { name: input.name, run: (ctx) => runMirror(input, selected, ctx) };
}

function selectedResources(options: MirrorOptions): Selected[] {
  return [...new Set(options.resources)].map((name) => ({
    resource: mirrorResource(name),
    table: mirrorTable(options, name),
  }));
}

async function runMirror(
  input: MirrorJobInput,
  selected: readonly Selected[],
  ctx: JobContext,
): Promise<RunResult> {
  const counts: Record<string, number> = { rows_written: 0, dead_lettered: 0 };
  if (ctx.dryRun) return dryRun(input, selected, ctx, counts);
  const result = await mirrorRun(input, selected, ctx, counts);
  return {
    ...result,
    tally: tallyOf(counts, 'rows', { delivered: ['rows_written'], heldBack: ['dead_lettered'] }),
  };
}

async function mirrorRun(
  input: MirrorJobInput,
  selected: readonly Selected[],
  ctx: JobContext,
  counts: Record<string, number>,
): Promise<RunResult> {
  const run: MirrorRun = {
    input,
    ctx,
    budget: new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal),
    counts,
    outcomes: [],
    errors: [],
    base: { job: input.name, api: input.api, sink: input.sink, state: ctx.state, clock: ctx.clock },
  };
  for (const { table } of selected) await input.sink.ensureTable(table.spec);
  const backfill = await backfillFirstRun(run, selected);
  if ('failed' in backfill) return { outcome: 'failed', counts, error: backfill.failed };
  for (const one of selected) await mirrorOne(run, one, backfill.waitForExport);
  const combined = combine(run.outcomes);
  // Waiting for an export is progress (the job exists and is being polled), not a skipped run.
  const outcome =
    backfill.waitForExport && (combined === 'ok' || combined === 'skipped') ? 'partial' : combined;
  return { outcome, counts, ...(run.errors.length === 0 ? {} : { error: run.errors.join('; ') }) };
}

async function backfillFirstRun(run: MirrorRun, selected: readonly Selected[]): Promise<BackfillStep> {
  const { input, ctx, counts } = run;
  const targets: BackfillTarget[] = selected.flatMap(({ resource, table }) =>
    isExportable(resource) ? [{ resource, table }] : [],
  );
  try {
    const backfill = await runBackfill({
      ...run.base,
      budget: run.budget,
      options: input.options,
      targets,
      ...(input.dispatcher === undefined ? {} : { dispatcher: input.dispatcher }),
    });
    if (backfill.status === 'waiting') {
      ctx.logger.info({ job: input.name }, 'mirror: export job still running; the next run resumes it');
      run.errors.push('the backfill export is still running');
      // Resources an unfinished export will deliver wait for it; the others are pulled meanwhile.
      return { waitForExport: true };
    }
    if (backfill.status === 'done') {
      add(counts, 'backfill_rows', backfill.rows);
      add(counts, 'rows_written', backfill.rows);
      add(counts, 'dead_lettered', backfill.deadLettered);
      ctx.logger.info({ job: input.name, rows: backfill.rows }, 'mirror: backfill loaded');
    }
    return { waitForExport: false };
  } catch (error) {
    ctx.logger.warn({ job: input.name, err: errorMessage(error) }, 'mirror: backfill failed');
    return { failed: `backfill: ${errorMessage(error)}` };
  }
}

/** Brings one resource's table up to date, unless it waits for the export or the budget is spent. */
async function mirrorOne(
  run: MirrorRun,
  { resource, table }: Selected,
  waitForExport: boolean,
): Promise<void> {
  if ((waitForExport && isExportable(resource)) || run.budget.stopReason() !== null) {
    run.outcomes.push('skipped');
    return;
  }
  if (resource.mode === 'list') await refreshListed(run, resource, table);
  else await pullPaged(run, resource, table);
}

async function refreshListed(run: MirrorRun, resource: ListResource, table: MirrorTable): Promise<void> {
  const { counts } = run;
  try {
    const result = await refreshList({ ...run.base, signal: run.budget.signal, resource, table });
    add(counts, `${resource.name}.fetched`, result.fetched);
    add(counts, `${resource.name}.written`, result.written);
    add(counts, 'rows_written', result.written);
    add(counts, 'rows_deleted', result.deleted);
    add(counts, 'dead_lettered', result.deadLettered);
    run.outcomes.push('ok');
  } catch (error) {
    run.errors.push(`${resource.name}: ${errorMessage(error)}`);
    run.outcomes.push('failed');
  }
}

async function pullPaged(run: MirrorRun, resource: PagedResource, table: MirrorTable): Promise<void> {
  const { counts } = run;
  const result = await pullResource({
    ...run.base,
    budget: run.budget,
    options: run.input.options,
    resource,
    table,
  });
  add(counts, `${resource.name}.fetched`, result.counts.fetched);
  add(counts, `${resource.name}.written`, result.written);
  add(counts, 'rows_written', result.written);
  add(counts, 'dead_lettered', result.counts.deadLettered);
  run.outcomes.push(result.outcome);
  if (result.error !== undefined) run.errors.push(`${resource.name}: ${result.error}`);
}

/** Reads the first page of each resource and writes nothing. */
async function dryRun(
  input: MirrorJobInput,
  selected: readonly Selected[],
  ctx: JobContext,
  counts: Record<string, number>,
): Promise<RunResult> {
  for (const { resource } of selected) {
    const page =
      resource.mode === 'list'
        ? await resource.fetchAll(input.api, ctx.signal)
        : await resource.fetchPage(input.api, {
            cursor: null,
            updatedSince: null,
            fromDate: null,
            limit: input.options.page_size,
            signal: ctx.signal,
          });
    counts[`${resource.name}.would_read`] = page.items.length + page.quarantined.length;
  }
  const wouldRead = Object.keys(counts).filter((name) => name.endsWith('.would_read'));
  return { outcome: 'ok', counts, tally: tallyOf(counts, 'rows', { delivered: wouldRead, heldBack: [] }) };
}

function add(counts: Record<string, number>, key: string, n: number): void {
  counts[key] = (counts[key] ?? 0) + n;
}
