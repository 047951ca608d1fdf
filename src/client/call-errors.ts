/** The errors a call ends with: an error response, a network failure, an abort, a passed deadline. */
import { ApiError, NetworkApiError } from './errors.js';
import { describeNetworkError, type AttemptOutcome } from './http-attempt.js';
import { errorFromResponse } from './problem.js';
import type { Redactor } from './redact.js';
import { parseRetryAfterMs, rateLimitResetMs } from './retry-policy.js';
import type { RequestSpec } from './transport-types.js';

export function errorFromOutcome(
  spec: RequestSpec,
  path: string,
  outcome: AttemptOutcome,
  attempt: number,
  redactor: Redactor,
  nowMs: number,
): ApiError {
  if (outcome.kind === 'response') {
    const error = errorFromResponse({
      status: outcome.status,
      contentType: outcome.header('content-type'),
      // Redacted before parsing, so message, title, detail and body never echo a credential back.
      text: redactor.redact(outcome.text),
      method: spec.method,
      path,
      requestId: outcome.header('x-request-id') ?? null,
    });
    error.attempts = attempt;
    error.retryAfterMs =
      parseRetryAfterMs(outcome.header('retry-after'), nowMs) ?? rateLimitResetMs(outcome.header);
    return error;
  }
  const description = outcome.kind === 'network' ? describeNetworkError(outcome.error) : 'aborted';
  return new NetworkApiError({
    status: 0,
    code: 'network_error',
    method: spec.method,
    path,
    retryable: true,
    attempts: attempt,
    message: redactor.redact(`${spec.method} ${path} failed: network error (${description})`),
  });
}

export function abortedError(spec: RequestSpec, path: string, attempts: number): ApiError {
  return new ApiError({
    status: 0,
    code: 'aborted',
    method: spec.method,
    path,
    attempts,
    message: `${spec.method} ${path} was aborted`,
  });
}

export function deadlineError(spec: RequestSpec, path: string, last: ApiError, attempts: number): ApiError {
  return new ApiError({
    status: last.status,
    code: 'deadline_exceeded',
    method: spec.method,
    path,
    requestId: last.requestId,
    retryable: true,
    attempts,
    cause: last,
    ...(last.retryAfterMs === undefined ? {} : { retryAfterMs: last.retryAfterMs }),
    message: `${spec.method} ${path} gave up: the call's deadline would pass before the next attempt (last: ${last.message})`,
  });
}

/** The rate limiter's next free slot lies beyond the call's deadline: give up now instead of waiting. */
export function slotDeadlineError(
  spec: RequestSpec,
  path: string,
  attempts: number,
  waitMs: number,
): ApiError {
  return new ApiError({
    status: 0,
    code: 'deadline_exceeded',
    method: spec.method,
    path,
    retryable: true,
    attempts,
    retryAfterMs: waitMs,
    message: `${spec.method} ${path} gave up: the rate limit allows the next request in ${waitMs} ms, after the call's deadline`,
  });
}
