/**
 * The mirror job: make sure every selected table exists, backfill through a bulk export on a first run when the
 * plan allows it, then pull each resource into its table (one stream per resource).
 */
import type { Dispatcher } from 'undici';
import type { ApiClient } from '../../client/index.js';
import type { MirrorSink } from '../../connector-contract/index.js';
import { RunBudget, errorMessage, type Job, type JobContext, type RunResult } from '../../engine/index.js';
import { runBackfill, type BackfillTarget } from './backfill.js';
import type { MirrorOptions } from './options.js';
import { pullResource } from './pull-stream.js';
import { refreshList } from './refresh-list.js';
import { mirrorResource, type MirrorResource, type PagedResource } from './resources.js';
import { mirrorTable, type MirrorTable } from './tables.js';

export interface MirrorJobInput {
  /** The job's name: names its streams, dead letters and backfill state. */
  readonly name: string;
  readonly api: ApiClient;
  readonly sink: MirrorSink;
  /** jobs.<name>.options as mirrorOptionsSchema parsed them. */
  readonly options: MirrorOptions;
  /** For export downloads; undici's global dispatcher by default. */
  readonly dispatcher?: Dispatcher;
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

export function createMirrorJob(input: MirrorJobInput): Job {
  const { options } = input;
  const selected: Selected[] = [...new Set(options.resources)].map((name) => ({
    resource: mirrorResource(name),
    table: mirrorTable(options, name),
  }));

  async function run(ctx: JobContext): Promise<RunResult> {
    const counts: Record<string, number> = { rows_written: 0, dead_lettered: 0 };
    const add = (key: string, n: number) => {
      counts[key] = (counts[key] ?? 0) + n;
    };
    if (ctx.dryRun) return dryRun(ctx, counts);
    const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
    const outcomes: Outcome[] = [];
    const errors: string[] = [];
    const base = { job: input.name, api: input.api, sink: input.sink, state: ctx.state, clock: ctx.clock };

    for (const { table } of selected) await input.sink.ensureTable(table.spec);

    const targets: BackfillTarget[] = selected.flatMap(({ resource, table }) =>
      isExportable(resource) ? [{ resource, table }] : [],
    );
    // Resources an unfinished export will deliver wait for it; the others are pulled meanwhile.
    let waitForExport = false;
    try {
      const backfill = await runBackfill({
        ...base,
        budget,
        options,
        targets,
        ...(input.dispatcher === undefined ? {} : { dispatcher: input.dispatcher }),
      });
      if (backfill.status === 'waiting') {
        ctx.logger.info({ job: input.name }, 'mirror: export job still running; the next run resumes it');
        waitForExport = true;
        errors.push('the backfill export is still running');
      }
      if (backfill.status === 'done') {
        add('backfill_rows', backfill.rows);
        add('rows_written', backfill.rows);
        add('dead_lettered', backfill.deadLettered);
        ctx.logger.info({ job: input.name, rows: backfill.rows }, 'mirror: backfill loaded');
      }
    } catch (error) {
      ctx.logger.warn({ job: input.name, err: errorMessage(error) }, 'mirror: backfill failed');
      return { outcome: 'failed', counts, error: `backfill: ${errorMessage(error)}` };
    }

    for (const { resource, table } of selected) {
      if (waitForExport && isExportable(resource)) {
        outcomes.push('skipped');
        continue;
      }
      if (budget.stopReason() !== null) {
        outcomes.push('skipped');
        continue;
      }
      if (resource.mode === 'list') {
        try {
          const result = await refreshList({ ...base, signal: budget.signal, resource, table });
          add(`${resource.name}.fetched`, result.fetched);
          add(`${resource.name}.written`, result.written);
          add('rows_written', result.written);
          add('rows_deleted', result.deleted);
          add('dead_lettered', result.deadLettered);
          outcomes.push('ok');
        } catch (error) {
          errors.push(`${resource.name}: ${errorMessage(error)}`);
          outcomes.push('failed');
        }
        continue;
      }
      const result = await pullResource({ ...base, budget, options, resource, table });
      add(`${resource.name}.fetched`, result.counts.fetched);
      add(`${resource.name}.written`, result.written);
      add('rows_written', result.written);
      add('dead_lettered', result.counts.deadLettered);
      outcomes.push(result.outcome);
      if (result.error !== undefined) errors.push(`${resource.name}: ${result.error}`);
    }
    const combined = combine(outcomes);
    // Waiting for an export is progress (the job exists and is being polled), not a skipped run.
    const outcome = waitForExport && (combined === 'ok' || combined === 'skipped') ? 'partial' : combined;
    return { outcome, counts, ...(errors.length === 0 ? {} : { error: errors.join('; ') }) };
  }

  /** Reads the first page of each resource and writes nothing. */
  async function dryRun(ctx: JobContext, counts: Record<string, number>): Promise<RunResult> {
    for (const { resource } of selected) {
      const page =
        resource.mode === 'list'
          ? await resource.fetchAll(input.api, ctx.signal)
          : await resource.fetchPage(input.api, {
              cursor: null,
              updatedSince: null,
              fromDate: null,
              limit: options.page_size,
              signal: ctx.signal,
            });
      counts[`${resource.name}.would_read`] = page.items.length + page.quarantined.length;
    }
    return { outcome: 'ok', counts };
  }

  return { name: input.name, run };
}
