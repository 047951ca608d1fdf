import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { StateStore } from '../state/store.js';
import type { RunOutcome, RunTrigger } from '../state/runs.js';

export type { RunOutcome, RunTrigger } from '../state/runs.js';

/**
 * When per-record failures fail a whole run. A run fails once failures exceed `maxFailures`, or once at least
 * `minSample` records were tried and the failed share exceeds `maxFailureShare`; at its end also when every
 * record it tried failed.
 */
export interface ErrorThreshold {
  maxFailures?: number;
  maxFailureShare?: number;
  minSample?: number;
}

/**
 * What a run delivered and what it held back (dead letters, files rejected whole, records waiting for a mapping), in
 * the flow's own unit. Every flow reports one; judgeRun decides the run's outcome from it.
 */
export interface RunTally {
  /** What the flow counts, plural: documents, orders, expenses, files... */
  readonly unit: string;
  readonly delivered: number;
  readonly heldBack: number;
  /** Why records were held back, each reason with how many of them; named in the failed run's error. */
  readonly reasons?: Readonly<Record<string, number>>;
}

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
  /** Who asked for the run (an operator command's caller); the trigger names it when absent. */
  requestedBy?: string;
  /** When per-record failures fail the run (from the job's config); the engine's default when absent. */
  errorThreshold?: ErrorThreshold;
}

/** A unit of work the scheduler, the webhook dispatcher and the CLI drive through `runJob`. */
export interface Job {
  readonly name: string;
  run(ctx: JobContext): Promise<RunResult>;
}
