import type { Clock } from '../shared/clock.js';
import type { RunOutcome } from '../state/runs.js';

const MAX_ERROR_LENGTH = 500;

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

export const DEFAULT_ERROR_THRESHOLD: Required<ErrorThreshold> = {
  maxFailures: Number.POSITIVE_INFINITY,
  maxFailureShare: 0.2,
  minSample: 20,
};

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
    const { maxFailures, maxFailureShare, minSample } = this.threshold;
    if (this.failed > maxFailures) return `${this.failed} records failed (threshold ${maxFailures})`;
    if (this.tried >= minSample && this.failed / this.tried > maxFailureShare) {
      const threshold = Math.round(maxFailureShare * 100);
      return `${this.failed} of ${this.tried} records went to dead letters (more than ${threshold}%)`;
    }
    return null;
  }

  /**
   * The verdict at the end of a run: a breach as above, or every record tried went to dead letters (however
   * few), since such a run delivered nothing. Not checked per page, so a bad first page does not stop a run.
   */
  finalBreach(): string | null {
    const breach = this.exceeded();
    if (breach !== null) return breach;
    if (this.failed > 0 && this.failed === this.tried) {
      return `all ${this.failed} record${this.failed === 1 ? '' : 's'} went to dead letters`;
    }
    return null;
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
