/**
 * Sorting errors into "this record cannot be processed now" (a dead letter with a reason) and "the run cannot go
 * on" (thrown, so nothing is checkpointed and the next run retries). Shared by the flows that file dead letters.
 */
import { isApiError } from '../../client/index.js';
import { ConnectorError } from '../../connector-contract/index.js';
import { errorMessage } from '../../engine/index.js';
import type { MissingMapping } from '../../shared/missing-mapping.js';
import { LeadershipLostError } from '../../state/index.js';

/**
 * A record-level problem: the record is filed as a dead letter with this message, and with `missing` when the one
 * thing wrong is a value a mapping table lacks.
 */
export class RecordProblem extends Error {
  readonly missing: MissingMapping | undefined;

  constructor(message: string, options?: { cause?: unknown; missing?: MissingMapping | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RecordProblem';
    this.missing = options?.missing;
  }
}

/** The instance no longer leads (a write refused by the fence, the state's or an API write's): the run stops. */
export function isLeadershipLost(error: unknown): boolean {
  return error instanceof LeadershipLostError;
}

/**
 * True for failures that say nothing about the record itself: network, rate limits, a database that is down, a
 * term that ended.
 */
export function isTransient(error: unknown): boolean {
  if (isLeadershipLost(error)) return true;
  if (isApiError(error)) return error.retryable || error.status === 401 || error.status === 403;
  if (error instanceof ConnectorError) return error.retryable;
  return false;
}

/** Turns a caught error into a dead-letter reason, or rethrows what must stop the run. */
export function recordFailureReason(error: unknown, signal: AbortSignal): string {
  if (signal.aborted || isTransient(error)) throw error;
  if (error instanceof RecordProblem) return error.message;
  if (isApiError(error)) {
    const request = error.requestId === null ? '' : ` (request ${error.requestId})`;
    return `API answered ${error.status} ${error.code} on ${error.method} ${error.path}${request}: ${errorMessage(error)}`;
  }
  return errorMessage(error);
}

export function isConflict(error: unknown): boolean {
  return isApiError(error) && error.status === 409;
}

export function isNotFound(error: unknown): boolean {
  return isApiError(error) && error.status === 404;
}
