/** The context a flow test runs a job with: real clock and state, silent logs, nothing aborted, not a dry run. */
import { pino } from 'pino';
import type { JobContext } from '../../src/engine/index.js';
import { systemClock } from '../../src/shared/clock.js';
import type { StateStore } from '../../src/state/index.js';

export function jobContext(state: StateStore, overrides: Partial<JobContext> = {}): JobContext {
  return {
    signal: new AbortController().signal,
    budgetMs: 120_000,
    dryRun: false,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    state,
    trigger: 'cli',
    ...overrides,
  };
}
