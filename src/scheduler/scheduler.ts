/**
 * Runs jobs on their cron schedules, on demand (webhooks, CLI) and once at start when a run was missed while the
 * daemon was down. One run per job at a time: triggers that arrive during a run coalesce into one follow-up run.
 */
import { systemClock, type Clock } from '../shared/clock.js';
import { parseCron, type CronSchedule } from './cron.js';
import { nextFireTime } from './next-fire.js';

export type SchedulerTrigger = 'schedule' | 'catch-up' | 'webhook' | 'cli' | 'operator';

export interface ScheduledJobSpec {
  readonly name: string;
  /** Cron expression; a job without one runs only on demand. */
  readonly schedule?: string | undefined;
  readonly timezone?: string | undefined;
  /** Each scheduled run starts up to this many ms late, spreading load; 0 means on the minute. */
  readonly jitterMs?: number | undefined;
  readonly enabled?: boolean | undefined;
}

/**
 * Runs one job to completion; in the daemon this delegates to the engine's runJob. Must honour `signal`.
 * `requestedBy` names who asked (an operator command's caller); undefined for a run the trigger alone explains.
 */
export type RunJobFn = (
  job: string,
  trigger: SchedulerTrigger,
  signal: AbortSignal,
  requestedBy?: string,
) => Promise<unknown>;

export type SchedulerEvent =
  | { type: 'scheduled'; job: string; at: number }
  | { type: 'started'; job: string; trigger: SchedulerTrigger }
  | { type: 'finished'; job: string; trigger: SchedulerTrigger }
  | { type: 'failed'; job: string; trigger: SchedulerTrigger; error: unknown }
  | { type: 'coalesced'; job: string; trigger: SchedulerTrigger }
  | { type: 'refused'; job: string; trigger: SchedulerTrigger; reason: string };

export interface SchedulerOptions {
  readonly jobs: readonly ScheduledJobSpec[];
  readonly run: RunJobFn;
  readonly clock?: Clock;
  /** Default time zone of schedules (IANA name). */
  readonly timezone?: string;
  /** Uniform random in [0, 1), injected so jitter is reproducible in tests. */
  readonly random?: () => number;
  /** Start time of the job's last run from run history, for the catch-up decision. */
  readonly lastStart?: (job: string) => number | undefined;
  readonly onEvent?: (event: SchedulerEvent) => void;
  /** Longest single sleep, so clock jumps and suspends are noticed; also keeps timers within setTimeout's range. */
  readonly maxSleepMs?: number;
}

interface JobSlot {
  readonly spec: ScheduledJobSpec;
  readonly cron: CronSchedule | undefined;
  running: Promise<void> | undefined;
  followUp: FollowUp | undefined;
  /** Work waiting for the current run to end, carried out before any follow-up run starts. */
  readonly between: BetweenRuns[];
  nextAt: number | undefined;
}

/** The one run owed after the current one, for every trigger that came during it. */
interface FollowUp {
  trigger: SchedulerTrigger;
  requestedBy: string | undefined;
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

/** Work waiting for a run to end: carried out when it ends, or abandoned when the scheduler stops first. */
interface BetweenRuns {
  readonly carryOut: () => void;
  readonly abandon: (error: Error) => void;
}

/**
 * Work waiting between runs that this scheduler will not carry out: it stopped while the run the work waited for
 * was still going on. Whoever gave the work is left to give it again to the next scheduler.
 */
export class SchedulerStoppedError extends Error {
  override readonly name = 'SchedulerStoppedError';
  readonly code = 'scheduler_stopped';
}

export class UnknownJobError extends Error {
  override readonly name = 'UnknownJobError';
  readonly code = 'unknown_job';
}

export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #clock: Clock;
  readonly #timezone: string;
  readonly #slots = new Map<string, JobSlot>();
  readonly #loopAbort = new AbortController();
  readonly #runAbort = new AbortController();
  readonly #loops: Promise<void>[] = [];
  #started = false;
  #stopping = false;
  /** stop() has returned: runs still going on then end without this scheduler doing anything after them. */
  #stopped = false;

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#timezone = options.timezone ?? 'Asia/Jerusalem';
    for (const spec of options.jobs) {
      const cron = spec.schedule === undefined ? undefined : parseCron(spec.schedule);
      this.#slots.set(spec.name, {
        spec,
        cron,
        running: undefined,
        followUp: undefined,
        between: [],
        nextAt: undefined,
      });
    }
  }

  /** Starts the schedule loops and the catch-up runs. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const now = this.#clock.now();
    for (const slot of this.#slots.values()) {
      if (slot.spec.enabled === false || !slot.cron) continue;
      const last = this.#options.lastStart?.(slot.spec.name);
      if (last !== undefined && nextFireTime(slot.cron, last, this.#zoneOf(slot)) <= now) {
        void this.runNow(slot.spec.name, 'catch-up');
      }
      this.#loops.push(this.#loop(slot, slot.cron));
    }
  }

  /**
   * Runs a job now (or right after its current run). Resolves when that run has finished. A follow-up asked for by
   * several triggers is recorded as the first named requester's (an operator's), else the first trigger's.
   */
  runNow(job: string, trigger: SchedulerTrigger = 'cli', requestedBy?: string): Promise<void> {
    const slot = this.#slots.get(job);
    if (!slot) throw new UnknownJobError(`no job named "${job}"`);
    if (this.#stopping) {
      this.#emit({ type: 'refused', job, trigger, reason: 'shutting down' });
      return Promise.resolve();
    }
    if (slot.running) {
      if (!slot.followUp) {
        let resolve: () => void = () => undefined;
        const promise = new Promise<void>((r) => (resolve = r));
        slot.followUp = { trigger, requestedBy, promise, resolve };
      } else if (slot.followUp.requestedBy === undefined && requestedBy !== undefined) {
        slot.followUp.trigger = trigger;
        slot.followUp.requestedBy = requestedBy;
      }
      this.#emit({ type: 'coalesced', job, trigger });
      return slot.followUp.promise;
    }
    slot.running = this.#execute(slot, trigger, requestedBy);
    return slot.running;
  }

  isRunning(job: string): boolean {
    return this.#slots.get(job)?.running !== undefined;
  }

  /**
   * Carries out `work` while no run of the job is in flight: at once when the job is idle (or unknown here), else as
   * soon as its current run ends and before a follow-up run starts, also while stopping. For a change a run would
   * undo, such as a cursor reset that a run in flight would save over. Resolves with what `work` returns; rejects
   * with a SchedulerStoppedError, `work` not carried out, when the run outlives the stop's time (or the scheduler
   * had already stopped with the run still going on).
   */
  betweenRuns<T>(job: string, work: () => T): Promise<T> {
    const slot = this.#slots.get(job);
    if (slot?.running === undefined) return new Promise<T>((resolve) => resolve(work()));
    if (this.#stopped) return Promise.reject(stoppedBefore(job));
    return new Promise<T>((resolve, reject) => {
      slot.between.push({
        carryOut: () => {
          try {
            resolve(work());
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        },
        abandon: reject,
      });
    });
  }

  /** When each scheduled job fires next (after jitter), for status pages. */
  nextRuns(): Map<string, number | undefined> {
    return new Map([...this.#slots].map(([name, slot]) => [name, slot.nextAt]));
  }

  /**
   * Stops taking work, aborts running jobs (they stop at their next checkpoint) and waits up to `timeoutMs` for them.
   * Resolves with the jobs still running when the time was up.
   */
  async stop(timeoutMs: number): Promise<{ unfinished: string[] }> {
    this.#stopping = true;
    this.#loopAbort.abort(new Error('scheduler stopped'));
    this.#runAbort.abort(new Error('shutting down'));
    for (const slot of this.#slots.values()) {
      slot.followUp?.resolve();
      slot.followUp = undefined;
    }
    await Promise.allSettled(this.#loops);
    const running = [...this.#slots.values()].filter((slot) => slot.running);
    const deadline = new AbortController();
    const timedOut = this.#clock.sleep(timeoutMs, deadline.signal).then(
      () => true,
      () => false,
    );
    await Promise.race([Promise.allSettled(running.map((slot) => slot.running)), timedOut]);
    deadline.abort();
    this.#stopped = true;
    const unfinished = running.filter((slot) => slot.running);
    // What waits for a run that outlived the stop is settled now: no one would carry it out when that run ends.
    for (const slot of unfinished) {
      for (const waiting of slot.between.splice(0)) waiting.abandon(stoppedBefore(slot.spec.name));
    }
    return { unfinished: unfinished.map((slot) => slot.spec.name) };
  }

  #zoneOf(slot: JobSlot): string {
    return slot.spec.timezone ?? this.#timezone;
  }

  async #execute(slot: JobSlot, trigger: SchedulerTrigger, requestedBy: string | undefined): Promise<void> {
    const job = slot.spec.name;
    this.#emit({ type: 'started', job, trigger });
    try {
      await this.#options.run(job, trigger, this.#runAbort.signal, requestedBy);
      this.#emit({ type: 'finished', job, trigger });
    } catch (error) {
      this.#emit({ type: 'failed', job, trigger, error });
    }
    for (const waiting of slot.between.splice(0)) waiting.carryOut();
    const followUp = slot.followUp;
    slot.followUp = undefined;
    if (followUp && !this.#stopping) {
      slot.running = this.#execute(slot, followUp.trigger, followUp.requestedBy);
      void slot.running.then(followUp.resolve);
    } else {
      followUp?.resolve();
      slot.running = undefined;
    }
  }

  async #loop(slot: JobSlot, cron: CronSchedule): Promise<void> {
    const signal = this.#loopAbort.signal;
    const maxSleep = this.#options.maxSleepMs ?? 60_000;
    const jitterMs = slot.spec.jitterMs ?? 0;
    while (!signal.aborted) {
      const due = nextFireTime(cron, this.#clock.now(), this.#zoneOf(slot));
      const fireAt = due + Math.floor((this.#options.random ?? Math.random)() * jitterMs);
      slot.nextAt = fireAt;
      this.#emit({ type: 'scheduled', job: slot.spec.name, at: fireAt });
      try {
        for (let now = this.#clock.now(); now < fireAt; now = this.#clock.now()) {
          await this.#clock.sleep(Math.min(fireAt - now, maxSleep), signal);
        }
      } catch {
        return; // aborted by stop()
      }
      if (signal.aborted) return;
      void this.runNow(slot.spec.name, 'schedule');
    }
  }

  #emit(event: SchedulerEvent): void {
    this.#options.onEvent?.(event);
  }
}

function stoppedBefore(job: string): SchedulerStoppedError {
  return new SchedulerStoppedError(
    `the scheduler stopped while a run of job "${job}" was still going on; what waited for that run was not done`,
  );
}
