import type { StateStore } from '../state/store.js';
import type { Job, JobContext, RunResult } from './job.js';
import { errorMessage } from './outcome.js';

interface FollowUp {
  ctx: JobContext;
  promise: Promise<RunResult>;
  resolve: (result: RunResult) => void;
  reject: (error: unknown) => void;
}

interface InFlight {
  followUp: FollowUp | null;
}

/**
 * Single-flight per job name: while a job runs, further triggers coalesce into one follow-up run that starts when
 * the current one ends (a webhook storm yields at most one extra run). The follow-up uses the context of the first
 * trigger that asked for it; later callers share its result.
 */
export class JobRunner {
  private readonly inFlight = new Map<string, InFlight>();

  isRunning(jobName: string): boolean {
    return this.inFlight.has(jobName);
  }

  run(job: Job, ctx: JobContext): Promise<RunResult> {
    const current = this.inFlight.get(job.name);
    if (current) {
      if (!current.followUp) {
        let resolve!: (result: RunResult) => void;
        let reject!: (error: unknown) => void;
        const promise = new Promise<RunResult>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        current.followUp = { ctx, promise, resolve, reject };
        ctx.logger.debug({ job: job.name, trigger: ctx.trigger }, 'job running; follow-up run queued');
      }
      return current.followUp.promise;
    }
    const slot: InFlight = { followUp: null };
    this.inFlight.set(job.name, slot);
    return this.execute(job, ctx, slot);
  }

  private async execute(job: Job, ctx: JobContext, slot: InFlight): Promise<RunResult> {
    try {
      // A follow-up queued before shutdown does not start once shutdown has begun.
      if (ctx.signal.aborted) return { outcome: 'skipped', counts: {}, error: 'shutting down' };
      return await recordRun(job, ctx);
    } finally {
      const next = slot.followUp;
      slot.followUp = null;
      if (next) {
        this.execute(job, next.ctx, slot).then(next.resolve, next.reject);
      } else {
        this.inFlight.delete(job.name);
      }
    }
  }
}

/** Runs a job once and records it in run history; a thrown error becomes a "failed" run, never an unhandled one. */
export async function recordRun(job: Job, ctx: JobContext): Promise<RunResult> {
  const log = ctx.logger.child({ job: job.name, trigger: ctx.trigger, dryRun: ctx.dryRun });
  const runId = ctx.state.runs.start(job.name, ctx.trigger);
  const started = ctx.clock.now();
  log.info('run started');
  let result: RunResult;
  try {
    result = await job.run({ ...ctx, logger: log });
  } catch (error) {
    result = { outcome: 'failed', counts: {}, error: errorMessage(error) };
  }
  ctx.state.runs.finish(runId, result.outcome, result.counts, result.error ?? null);
  const fields = { outcome: result.outcome, counts: result.counts, durationMs: ctx.clock.now() - started };
  if (result.outcome === 'failed') log.error({ ...fields, error: result.error }, 'run failed');
  else if (result.outcome === 'partial') log.warn({ ...fields, error: result.error }, 'run ended partial');
  else log.info(fields, 'run finished');
  return result;
}

const runners = new WeakMap<StateStore, JobRunner>();

/** Runs a job with run history and single-flight; one runner per state store, so one per daemon process. */
export function runJob(job: Job, ctx: JobContext): Promise<RunResult> {
  let runner = runners.get(ctx.state);
  if (!runner) {
    runner = new JobRunner();
    runners.set(ctx.state, runner);
  }
  return runner.run(job, ctx);
}
