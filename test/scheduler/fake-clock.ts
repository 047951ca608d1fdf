import type { Clock } from '../../src/shared/clock.js';

interface Timer {
  at: number;
  resolve: () => void;
}

/** A clock that only moves when the test advances it; sleeps resolve in time order. */
export class FakeClock implements Clock {
  #now: number;
  #timers: Timer[] = [];

  constructor(start: number) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const timer: Timer = { at: this.#now + Math.max(0, ms), resolve };
      this.#timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.#timers = this.#timers.filter((t) => t !== timer);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }

  pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward to `target`, firing every timer due on the way and letting their work settle. */
  async advanceTo(target: number): Promise<void> {
    await settle();
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at);
      const next = this.#timers[0];
      if (!next || next.at > target) break;
      this.#timers.shift();
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
      await settle();
    }
    this.#now = Math.max(this.#now, target);
    await settle();
  }

  advanceBy(ms: number): Promise<void> {
    return this.advanceTo(this.#now + ms);
  }
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
