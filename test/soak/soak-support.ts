/** Helpers of the fake-clock soak: garbage collection on demand, and waiting until the daemon has no run open. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { StateStore } from '../../src/state/index.js';

/** A gc() even without --expose-gc: the flag can be set at run time and the function read from a new context. */
export function forceGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as unknown;
  if (typeof gc !== 'function') throw new Error('gc() is not available');
  return () => (gc as () => void)();
}

/**
 * Resolves once no run is open in the state file for a few consecutive looks. A run waiting on the clock (a retry
 * back-off, the rate limiter) needs time to pass, so while runs are open the fake clock moves on in small steps,
 * as it would in reality. The bound is in simulated time (`maxTicks` steps of `tickMs`: a run still open after that
 * is stuck); real time is only a guard against a hang (a busy machine makes each step slower, not fewer).
 */
export async function settleRuns(
  state: StateStore,
  clock: { advance(ms: number): void },
  options: {
    /** Real-time guard (default 120 s). */
    maxRealMs?: number;
    tickMs?: number;
    maxTicks?: number;
    quietLooks?: number;
    background?: () => void;
  } = {},
): Promise<number> {
  const started = Date.now();
  const guardMs = options.maxRealMs ?? 120_000;
  const maxTicks = options.maxTicks ?? 600;
  const tickMs = options.tickMs ?? 1_000;
  let quiet = 0;
  let ticks = 0;
  while (quiet < (options.quietLooks ?? 3)) {
    const open = state.db.prepare('SELECT job FROM runs WHERE ended_at IS NULL').all() as { job: string }[];
    if (ticks > maxTicks || Date.now() - started > guardMs) {
      const jobs = open.map((run) => run.job).join(', ');
      throw new Error(
        ticks > maxTicks
          ? `runs still open after ${ticks} steps of ${tickMs} ms of simulated time: ${jobs}`
          : `runs still open after ${Date.now() - started} ms of real time (guard), ${ticks} of ${maxTicks} ` +
              `steps of ${tickMs} ms of simulated time taken: ${jobs}`,
      );
    }
    quiet = open.length === 0 ? quiet + 1 : 0;
    options.background?.();
    await new Promise((resolve) => setTimeout(resolve, 4));
    if (open.length > 0) {
      clock.advance(tickMs);
      ticks += 1;
    }
  }
  return ticks;
}

/** The local calendar date of an instant in a time zone, e.g. 2026-03-27. */
export function localDate(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(ms);
}
