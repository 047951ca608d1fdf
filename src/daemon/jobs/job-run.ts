/** How the daemon and `sync` run one job: its context from the environment, then the engine's runJob. */
import { runJob, type Job, type RunResult } from '../../engine/index.js';
import type { RunJobFn, SchedulerTrigger } from '../../scheduler/index.js';
import { LeadershipLostError } from '../../state/index.js';
import type { BuiltJob, Environment } from '../services/environment.js';
import { errorThresholdFor } from './error-threshold.js';

export interface JobRunOptions {
  readonly env: Environment;
  readonly dryRun: boolean;
  /** The run's time budget when the job sets none. */
  readonly defaultBudgetMs: number;
  /** Overrides the job's own budget (the CLI's `sync --budget`). */
  readonly budgetMs?: number | undefined;
  /** The job as it runs (the daemon holds back jobs that fail the pre-flight). */
  readonly guard?: (name: string, job: Job) => Job;
  /**
   * A write of the run was refused by the leadership fence: this instance no longer leads (the daemon steps down).
   * The run ends failed by fencing; it is not a data error and nothing of it is dead-lettered.
   */
  readonly onFenced?: (name: string, reason: string) => void;
  /**
   * Runs a job's run bound to the leadership term current at its start (the daemon on a shared state): its writes
   * are fenced to that term, never to a later one of the same instance.
   */
  readonly inTerm?: <T>(work: () => Promise<T>) => Promise<T>;
  /** Told of every finished run (the daemon's metrics). */
  readonly onFinished?: (name: string, result: RunResult, durationMs: number) => void;
}

export type JobRunFn = (
  name: string,
  trigger: SchedulerTrigger,
  signal: AbortSignal,
  requestedBy?: string,
) => Promise<RunResult>;

export function jobRun(options: JobRunOptions): JobRunFn & RunJobFn {
  const { env } = options;
  return async (name, trigger, signal, requestedBy) => {
    const built: BuiltJob | undefined = env.jobs.get(name);
    if (built === undefined) throw new Error(`unknown job ${name}`);
    const job = options.guard?.(name, built.job) ?? built.job;
    const started = env.clock.now();
    const inTerm = options.inTerm ?? ((work) => work());
    const result = await inTerm(() =>
      fenceAware(name, options, () =>
        runJob(job, {
          signal,
          budgetMs: options.budgetMs ?? built.config.budget ?? options.defaultBudgetMs,
          dryRun: options.dryRun,
          logger: env.logger,
          clock: env.clock,
          state: env.state,
          trigger,
          ...(requestedBy === undefined ? {} : { requestedBy }),
          errorThreshold: errorThresholdFor(env.loaded.config, built.config),
        }),
      ),
    );
    options.onFinished?.(name, result, env.clock.now() - started);
    return result;
  };
}

/**
 * A LeadershipLostError (src/ha) ends the run: its writes, the run record's included, are refused by the fence, and
 * the next leader resumes from the last committed checkpoint.
 */
async function fenceAware(
  name: string,
  options: JobRunOptions,
  run: () => Promise<RunResult>,
): Promise<RunResult> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof LeadershipLostError)) throw error;
    options.env.logger.warn(
      { job: name, reason: error.message },
      'run ended: fenced, this instance no longer leads',
    );
    options.onFenced?.(name, error.message);
    return { outcome: 'failed', counts: {}, error: `fenced: ${error.message}` };
  }
}
