import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { StateStore } from '../state/store.js';
import type { RunOutcome, RunTrigger } from '../state/runs.js';
import type { ErrorThreshold, RunTally } from './outcome.js';

export type { RunOutcome, RunTrigger } from '../state/runs.js';

/** What a job run reports; `counts` lands in run history and metrics (records fetched, written, dead-lettered...). */
export interface RunResult {
  outcome: RunOutcome;
  counts: Record<string, number>;
  /** A message safe to show and store: never a secret. */
  error?: string;
  /** What the run delivered and held back; the engine's judgeRun decides the outcome from it. */
  tally?: RunTally;
}

export interface JobContext {
  /** Aborted on shutdown; a job stops at its next checkpoint and reports "partial". */
  signal: AbortSignal;
  /** Time this run may take; the job stops at a checkpoint once it is spent. */
  budgetMs: number;
  dryRun: boolean;
  logger: Logger;
  clock: Clock;
  state: StateStore;
  trigger: RunTrigger;
  /** When per-record failures fail the run (from the job's config); the engine's default when absent. */
  errorThreshold?: ErrorThreshold;
}

/** A unit of work the scheduler, the webhook dispatcher and the CLI drive through `runJob`. */
export interface Job {
  readonly name: string;
  run(ctx: JobContext): Promise<RunResult>;
}
