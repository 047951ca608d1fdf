/** Gap G25 and G24: the retry schedule and the failure window, both divided by the time scale. */
export const MAX_ATTEMPTS = 8;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Wait after failed attempt n (1-based) before attempt n + 1. */
export const RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 8 * HOUR, 8 * HOUR];
export const DISABLE_AFTER_MS = 24 * HOUR;
export const DELIVERY_TIMEOUT_MS = 10_000;
export const SNIPPET_LENGTH = 500;

/** Offset of attempt `attempt` (2..8) from attempt 1: the sum of the waits before it, divided by the time scale. */
export function retryOffsetMs(attempt: number, timeScale: number): number | null {
  if (attempt < 2 || attempt > MAX_ATTEMPTS) return null;
  return RETRY_DELAYS_MS.slice(0, attempt - 1).reduce((sum, wait) => sum + wait, 0) / timeScale;
}
