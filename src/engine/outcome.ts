import type { Clock } from '../shared/clock.js';
import type { RunOutcome } from '../state/runs.js';
import type { ErrorThreshold, RunResult, RunTally } from './job.js';

const MAX_ERROR_LENGTH = 500;
/** A held-back breach names at most this many reasons. */
const MAX_REASONS = 5;

/** A short, storable message for an error. Callers' errors must not carry secrets (the API client redacts). */
export function errorMessage(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`
      : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}...` : text;
}

export type StopReason = 'budget' | 'aborted';

/** A run's time budget and shutdown signal, checked between pages and batches. */
export class RunBudget {
  private readonly deadline: number;

  constructor(
    private readonly clock: Clock,
    budgetMs: number,
    readonly signal: AbortSignal,
  ) {
    this.deadline = clock.now() + Math.max(0, budgetMs);
  }

  /** Why the run must stop now, or null to go on. */
  stopReason(): StopReason | null {
    if (this.signal.aborted) return 'aborted';
    if (this.clock.now() >= this.deadline) return 'budget';
    return null;
  }

  remainingMs(): number {
    return Math.max(0, this.deadline - this.clock.now());
  }
}

export const DEFAULT_ERROR_THRESHOLD: Required<ErrorThreshold> = {
  maxFailures: Number.POSITIVE_INFINITY,
  maxFailureShare: 0.2,
  minSample: 20,
};

/** The share rule alone: at least `minSample` tried and more than `maxFailureShare` of them held back. */
function shareBreach(
  tried: number,
  heldBack: number,
  unit: string,
  threshold: ErrorThreshold,
): string | null {
  const { maxFailureShare, minSample } = { ...DEFAULT_ERROR_THRESHOLD, ...threshold };
  if (tried < minSample || heldBack / tried <= maxFailureShare) return null;
  return `${heldBack} of ${tried} ${unit} held back (more than ${Math.round(maxFailureShare * 100)}%)`;
}

/**
 * The rule every run ends by (docs/operations.md, "Run outcomes"): a run that delivered nothing while it held
 * something back failed, however few it tried; so did one that held back more than the job's `dead_letter_share`.
 * Returns the breach, or null when the run may keep the outcome its flow gave it.
 */
export function heldBackBreach(tally: RunTally, threshold: ErrorThreshold = {}): string | null {
  const { delivered, heldBack, unit } = tally;
  if (heldBack <= 0) return null;
  if (delivered <= 0)
    return `delivered nothing: ${heldBack === 1 ? '' : 'all '}${counted(heldBack, unit)} held back`;
  return shareBreach(delivered + heldBack, heldBack, unit, threshold);
}

/** `n` of `unit`, a plural noun (items, orders), in the singular for one. */
function counted(n: number, unit: string): string {
  return `${n} ${n === 1 ? unit.replace(/s$/, '') : unit}`;
}

/** The breach with its reasons, most frequent first: what a person reads in `runs` and the failure message. */
function breachText(breach: string, tally: RunTally): string {
  const reasons = Object.entries(tally.reasons ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (reasons.length === 0) return breach;
  const entries = reasons.map(([reason, n]) => `${reason} (${counted(n, tally.unit)})`);
  // Whole reasons, as many as fit the stored error with the note of the rest (the dead letters hold each one).
  const text = (listed: number) =>
    `${breach}: ${entries.slice(0, listed).join('; ')}${restNote(entries.length - listed)}`;
  let listed = Math.min(entries.length, MAX_REASONS);
  while (listed > 1 && text(listed).length > MAX_ERROR_LENGTH) listed -= 1;
  if (text(listed).length <= MAX_ERROR_LENGTH) return text(listed);
  // One reason longer than the error may be: shortened, the note of the rest kept whole.
  const note = restNote(entries.length - 1);
  return `${`${breach}: ${entries[0] ?? ''}`.slice(0, MAX_ERROR_LENGTH - note.length - 3)}...${note}`;
}

function restNote(rest: number): string {
  return rest === 0
    ? ''
    : `; and ${rest} more reason${rest === 1 ? '' : 's'} (supply-sync dead-letters list)`;
}

/**
 * Applies the one outcome rule to a finished run: its tally lands in the counts (`delivered`, `held_back`), and a
 * breach of heldBackBreach turns the run `failed` with the breach and its reasons as the error. A run already
 * failed or skipped keeps its own outcome and error.
 */
export function judgeRun(result: RunResult, threshold: ErrorThreshold = {}): RunResult {
  const { tally } = result;
  if (tally === undefined) return result;
  const counts = { ...result.counts, delivered: tally.delivered, held_back: tally.heldBack };
  if (result.outcome === 'failed' || result.outcome === 'skipped') return { ...result, counts };
  const breach = heldBackBreach(tally, threshold);
  if (breach === null) return { ...result, counts };
  const error = breachText(breach, tally);
  return {
    ...result,
    outcome: 'failed',
    counts,
    error: errorMessage(result.error ? `${error}; ${result.error}` : error),
  };
}

/**
 * Failures counted as a run goes, to stop it early: once failures exceed `maxFailures`, or the share rule of
 * heldBackBreach is broken. A run that delivered nothing is judged only at its end (judgeRun), so a bad first page
 * does not stop a run.
 */
export class FailureTracker {
  private readonly threshold: Required<ErrorThreshold>;
  tried = 0;
  failed = 0;

  constructor(threshold: ErrorThreshold = {}) {
    this.threshold = { ...DEFAULT_ERROR_THRESHOLD, ...threshold };
  }

  succeeded(n = 1): void {
    this.tried += n;
  }

  failure(n = 1): void {
    this.tried += n;
    this.failed += n;
  }

  /** A description of the breach, or null while under the threshold. Checked as the run goes. */
  exceeded(): string | null {
    const { maxFailures } = this.threshold;
    if (this.failed > maxFailures) return `${this.failed} records failed (threshold ${maxFailures})`;
    return shareBreach(this.tried, this.failed, 'records', this.threshold);
  }

  /** The run so far as a tally, for judgeRun. */
  tally(unit: string, reasons?: Readonly<Record<string, number>>): RunTally {
    const base = { unit, delivered: this.tried - this.failed, heldBack: this.failed };
    return reasons === undefined ? base : { ...base, reasons };
  }
}

/**
 * The outcome policy every job shares. Progress means at least one checkpoint was committed.
 * - stopped by budget or shutdown: partial with progress, skipped without;
 * - an error (a page that failed, a rate limit that outlasted the retries): partial with progress, failed without;
 * - failures past the threshold: failed;
 * - otherwise ok (records below the threshold sit in dead letters, which readiness reports on their own).
 */
export function decideOutcome(input: {
  progress: boolean;
  stopped: StopReason | null;
  error: unknown;
  thresholdBreach: string | null;
}): RunOutcome {
  if (input.thresholdBreach !== null) return 'failed';
  if (input.error !== undefined && input.error !== null) return input.progress ? 'partial' : 'failed';
  if (input.stopped !== null) return input.progress ? 'partial' : 'skipped';
  return 'ok';
}
