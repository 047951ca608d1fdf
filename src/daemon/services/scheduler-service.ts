/**
 * The scheduler: cron schedules, catch-up runs at start, and runs on demand (webhooks, CLI), one run per job at a
 * time. Each start makes a new scheduler, so the service can be stopped and started again (a leader that lost its
 * term and won a new one).
 */
import { Scheduler, type SchedulerTrigger } from '../../scheduler/index.js';
import type { RunResult } from '../../engine/index.js';
import type { Environment } from './environment.js';
import type { JobRunFn } from '../jobs/job-run.js';
import type { Service, StopOptions } from './service.js';

export interface SchedulerServiceOptions {
  readonly env: Environment;
  readonly run: JobRunFn;
  /** Run the jobs whose scheduled time passed while the daemon was down (the CLI's `--no-catch-up` turns it off). */
  readonly catchUp: boolean;
}

/** A run that threw instead of ending with a result (a failed run ends with one, its error in it). */
export interface RunThrew {
  readonly threw: unknown;
}

export class SchedulerService implements Service {
  readonly name = 'scheduler';
  #scheduler: Scheduler | undefined;
  #unfinished: readonly string[] = [];
  /** The last finished run of each job, numbered, so a caller can tell whether its run happened. */
  readonly #finished = new Map<string, { seq: number; result: RunResult | RunThrew }>();
  #seq = 0;

  constructor(private readonly options: SchedulerServiceOptions) {}

  /** The jobs still running when the last stop's time was up. */
  get unfinished(): readonly string[] {
    return this.#unfinished;
  }

  /** A second start while running does nothing: the running scheduler is kept. */
  async start(): Promise<void> {
    if (this.#scheduler !== undefined) return;
    const { env, run, catchUp } = this.options;
    const { state, clock, logger } = env;
    const scheduler = new Scheduler({
      jobs: [...env.jobs.entries()].map(([name, built]) => ({
        name,
        schedule: built.config.schedule,
        timezone: built.config.timezone,
        jitterMs: built.config.jitter,
        enabled: built.config.enabled,
      })),
      run: async (job, trigger, signal, requestedBy) => {
        let result: RunResult;
        try {
          result = await run(job, trigger, signal, requestedBy);
        } catch (error) {
          this.#finished.set(job, { seq: ++this.#seq, result: { threw: error } });
          throw error;
        }
        this.#finished.set(job, { seq: ++this.#seq, result });
        return result;
      },
      clock,
      timezone: env.loaded.config.timezone,
      lastStart: catchUp ? (job) => state.runs.last(job)?.startedAt : () => clock.now(),
      onEvent: (event) => logger.debug({ event }, 'scheduler'),
    });
    scheduler.start();
    this.#scheduler = scheduler;
  }

  /** Stops taking work, aborts running jobs at their next checkpoint and waits for them up to the timeout. */
  async stop(options: StopOptions): Promise<void> {
    const scheduler = this.#scheduler;
    this.#scheduler = undefined;
    if (scheduler === undefined) return;
    this.#unfinished = (await scheduler.stop(options.timeoutMs)).unfinished;
  }

  /** Runs a job now, or right after its current run; refused (resolves at once) while the scheduler is stopped. */
  runNow(job: string, trigger: SchedulerTrigger, requestedBy?: string): Promise<void> {
    if (this.#scheduler === undefined) {
      this.options.env.logger.info({ job, trigger }, 'run not started: the scheduler is stopped');
      return Promise.resolve();
    }
    return this.#scheduler.runNow(job, trigger, requestedBy);
  }

  /**
   * Runs a job now (or right after its current run) and resolves with the result of the run that ended after the
   * call; { threw } when that run threw; null when no run ended (the scheduler is stopped or stopping).
   */
  async runForResult(
    job: string,
    trigger: SchedulerTrigger,
    requestedBy?: string,
  ): Promise<RunResult | RunThrew | null> {
    const before = this.#finished.get(job)?.seq;
    await this.runNow(job, trigger, requestedBy);
    const after = this.#finished.get(job);
    return after === undefined || after.seq === before ? null : after.result;
  }

  /**
   * Carries out `work` while no run of the job is in flight: at once when it is idle, else right after its current
   * run and before the next (see Scheduler.betweenRuns); at once while stopped.
   */
  betweenRuns<T>(job: string, work: () => T): Promise<T> {
    const scheduler = this.#scheduler;
    if (scheduler === undefined) return new Promise<T>((resolve) => resolve(work()));
    return scheduler.betweenRuns(job, work);
  }

  isRunning(job: string): boolean {
    return this.#scheduler?.isRunning(job) ?? false;
  }

  /** When each scheduled job fires next; none while stopped. */
  nextRuns(): Map<string, number | undefined> {
    return this.#scheduler?.nextRuns() ?? new Map();
  }
}
