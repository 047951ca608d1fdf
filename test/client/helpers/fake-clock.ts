import type { Clock } from '../../../src/shared/clock.js';

/**
 * A clock whose sleep moves time to the sleep's end at once and records every wait, so tests never wait for real.
 * Concurrent sleepers started at the same moment move time to the latest end, not the sum of their waits.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  private current: number;

  constructor(start = Date.parse('2026-11-22T08:00:00Z')) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const end = this.current + ms;
    this.sleeps.push(ms);
    this.current = Math.max(this.current, end);
    // Yield so concurrent callers interleave as they would with real timers.
    await Promise.resolve();
  }

  totalSleptMs(): number {
    return this.sleeps.reduce((sum, ms) => sum + ms, 0);
  }
}
