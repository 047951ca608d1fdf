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
 * as it would in reality. Bounded in real time and in simulated time.
 */
export async function settleRuns(
  state: StateStore,
  clock: { advance(ms: number): void },
  options: {
    maxRealMs?: number;
    tickMs?: number;
    maxTicks?: number;
    quietLooks?: number;
    background?: () => void;
  } = {},
): Promise<number> {
  const until = Date.now() + (options.maxRealMs ?? 30_000);
  let quiet = 0;
  let ticks = 0;
  while (quiet < (options.quietLooks ?? 3)) {
    const open = state.db.prepare('SELECT job FROM runs WHERE ended_at IS NULL').all() as { job: string }[];
    if (Date.now() > until || ticks > (options.maxTicks ?? 600)) {
      throw new Error(`runs did not finish within the bound: ${open.map((run) => run.job).join(', ')}`);
    }
    quiet = open.length === 0 ? quiet + 1 : 0;
    options.background?.();
    await new Promise((resolve) => setTimeout(resolve, 4));
    if (open.length > 0) {
      clock.advance(options.tickMs ?? 1_000);
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
