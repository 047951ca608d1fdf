/**
 * Per-client pacing and concurrency cap. Request starts are spaced evenly at the allowed rate (sized from
 * GET /me rate_limit.per_minute or the RateLimit-Limit header), slowed when RateLimit-Remaining/Reset say the
 * window is running out, and paused until the reset when it is used up or a 429 names a wait.
 * All waiting goes through the injected Clock, so tests account for it without wall time.
 */
import type { Clock } from '../shared/clock.js';
import { parseNonNegativeNumber, type HeaderLookup } from './retry-policy.js';

export interface RateLimiterOptions {
  /** Requests per minute; undefined = unpaced until GET /me or a RateLimit-Limit header says otherwise. */
  perMinute?: number;
  /** Concurrent requests in flight. Default 8. */
  maxConcurrency?: number;
}

export interface RateLimiterStats {
  /** Total milliseconds callers spent waiting for pacing or a pause (clock time). */
  waitedMs: number;
  acquired: number;
  perMinute: number | undefined;
}

/** Thrown by acquire() when the next free start slot lies beyond the caller's deadline. */
export class SlotBeyondDeadlineError extends Error {
  override readonly name = 'SlotBeyondDeadlineError';
  constructor(readonly waitMs: number) {
    super(`the next request slot is ${waitMs} ms away, beyond the call's deadline`);
  }
}

export class RateLimiter {
  private perMinute: number | undefined;
  private readonly explicitRate: boolean;
  private readonly maxConcurrency: number;
  private inFlight = 0;
  private readonly queue: (() => void)[] = [];
  private nextStartAt = 0;
  private pausedUntil = 0;
  /** Extra spacing the server's remaining budget asks for, on top of the nominal rate. */
  private advisedIntervalMs = 0;
  private waitedMs = 0;
  private acquired = 0;

  constructor(
    private readonly clock: Clock,
    options: RateLimiterOptions = {},
  ) {
    this.perMinute = options.perMinute;
    this.explicitRate = options.perMinute !== undefined;
    this.maxConcurrency = Math.max(1, options.maxConcurrency ?? 8);
  }

  /** Sizes the limiter from GET /me rate_limit.per_minute (an explicit option wins). */
  setPerMinute(perMinute: number): void {
    if (this.explicitRate || !(perMinute > 0)) return;
    this.perMinute = perMinute;
  }

  /** Stops new request starts until `untilMs` (a 429's Retry-After, an exhausted window). */
  pauseUntil(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /** Learns from RateLimit-Limit / -Remaining / -Reset on any response. */
  observe(header: HeaderLookup): void {
    const limit = parseNonNegativeNumber(header('ratelimit-limit'));
    const remaining = parseNonNegativeNumber(header('ratelimit-remaining'));
    const resetSeconds = parseNonNegativeNumber(header('ratelimit-reset'));
    if (limit !== undefined && limit > 0 && this.perMinute === undefined) this.perMinute = limit;
    if (remaining === undefined || resetSeconds === undefined) return;
    const resetMs = resetSeconds * 1000;
    if (remaining <= 0) {
      this.pauseUntil(this.clock.now() + resetMs);
      this.advisedIntervalMs = 0;
      return;
    }
    this.advisedIntervalMs = resetMs / remaining;
  }

  private intervalMs(): number {
    const nominal = this.perMinute ? 60_000 / this.perMinute : 0;
    return Math.max(nominal, this.advisedIntervalMs);
  }

  /** Waits for a concurrency slot and the next pacing slot; resolves with the clock time spent waiting. */
  async acquire(signal?: AbortSignal, deadlineAt = Number.POSITIVE_INFINITY): Promise<number> {
    const startedAt = this.clock.now();
    if (this.inFlight >= this.maxConcurrency) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const index = this.queue.indexOf(grant);
          if (index >= 0) this.queue.splice(index, 1);
          reject(signal?.reason);
        };
        const grant = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        this.queue.push(grant);
      });
    } else {
      this.inFlight += 1;
    }
    try {
      // Reserve a start slot before sleeping so concurrent callers never share one; re-reserve when a pause
      // (a 429 seen by another call) was extended while this caller slept.
      for (;;) {
        const now = this.clock.now();
        const startAt = Math.max(now, this.nextStartAt, this.pausedUntil);
        if (startAt > deadlineAt) throw new SlotBeyondDeadlineError(startAt - now);
        this.nextStartAt = startAt + this.intervalMs();
        if (startAt <= now) break;
        await this.clock.sleep(startAt - now, signal);
        if (this.pausedUntil <= this.clock.now()) break;
      }
    } catch (error) {
      this.release();
      throw error;
    }
    const waited = this.clock.now() - startedAt;
    this.waitedMs += waited;
    this.acquired += 1;
    return waited;
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.inFlight = Math.max(0, this.inFlight - 1);
  }

  stats(): RateLimiterStats {
    return { waitedMs: this.waitedMs, acquired: this.acquired, perMinute: this.perMinute };
  }
}
