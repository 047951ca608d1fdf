/** A clock that only moves when told to; POST /_sandbox/clock advances it. */
import type { Clock } from '../../shared/clock.js';

export interface AdvanceableClock extends Clock {
  advance(ms: number): void;
}

export function isAdvanceable(clock: Clock): clock is AdvanceableClock {
  return typeof (clock as Partial<AdvanceableClock>).advance === 'function';
}

export function createManualClock(startMs = Date.UTC(2026, 0, 5, 8, 0, 0)): AdvanceableClock {
  let now = startMs;
  const waiters: { at: number; resolve: () => void }[] = [];
  const wake = () => {
    for (const waiter of waiters.filter((w) => w.at <= now)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
      wake();
    },
    sleep(ms: number, signal?: AbortSignal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = (): void => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(signal?.reason);
        };
        // The listener goes away with the sleep, so long fake-clock runs do not pile them up on one signal.
        const waiter = {
          at: now + ms,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        waiters.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        wake();
      });
    },
  };
}
