/** How long to wait before the next attempt: the server's word first, then jittered exponential backoff. */

export interface RetryOptions {
  /** Attempts per call including the first. Default 6. */
  maxAttempts?: number;
  /** First backoff step. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap for one backoff step (not for server-requested waits). Default 30 s. */
  maxDelayMs?: number;
  /** Overall budget per call, attempts and waits included. Default 5 minutes. */
  deadlineMs?: number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

export const DEFAULT_RETRY: ResolvedRetryOptions = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  deadlineMs: 300_000,
};

export type HeaderLookup = (name: string) => string | undefined;

/** Retry-After as delta seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

export function parseNonNegativeNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/** RateLimit-Reset (delta seconds) when RateLimit-Remaining says the window is used up. */
export function rateLimitResetMs(header: HeaderLookup): number | undefined {
  const remaining = parseNonNegativeNumber(header('ratelimit-remaining'));
  const reset = parseNonNegativeNumber(header('ratelimit-reset'));
  if (remaining === undefined || reset === undefined || remaining > 0) return undefined;
  return Math.round(reset * 1000);
}

/** "Full jitter" capped exponential backoff: uniform in [step/2, step]. */
export function backoffMs(attempt: number, options: ResolvedRetryOptions, random: () => number): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

export interface DelayDecision {
  delayMs: number;
  source: 'retry-after' | 'ratelimit-reset' | 'backoff';
}

/** Delay before attempt `attempt + 1`, given the failed attempt's response headers (none for network errors). */
export function retryDelay(
  attempt: number,
  header: HeaderLookup | undefined,
  nowMs: number,
  options: ResolvedRetryOptions,
  random: () => number,
): DelayDecision {
  if (header) {
    const retryAfter = parseRetryAfterMs(header('retry-after'), nowMs);
    if (retryAfter !== undefined) return { delayMs: retryAfter, source: 'retry-after' };
    const reset = rateLimitResetMs(header);
    if (reset !== undefined) return { delayMs: reset, source: 'ratelimit-reset' };
  }
  return { delayMs: backoffMs(attempt, options, random), source: 'backoff' };
}
