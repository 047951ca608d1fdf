/**
 * A paused job takes no scheduled, catch-up or webhook runs. Its webhooks are still stored in the inbox; since a
 * webhook only nudges a run (the run reads every change since its cursor), what is kept for later is that nudge: a
 * mark per job in the state, and one webhook run as soon as the job is resumed (or the next leader starts).
 */
import type { RunResult } from '../../engine/index.js';
import type { StateStore } from '../../state/index.js';
import type { JobRunFn } from '../jobs/job-run.js';
import type { Environment } from '../services/environment.js';

const HELD_WEBHOOK_RUNS = 'held-webhook-runs';

const SKIPPED: RunResult = { outcome: 'skipped', counts: {} };

export function pauseAware(run: JobRunFn, env: Environment): JobRunFn {
  const { state, clock, logger } = env;
  return async (name, trigger, signal, requestedBy) => {
    const paused = state.pausedJobs.get(name);
    if (paused !== null && trigger !== 'operator' && trigger !== 'cli') {
      if (trigger === 'webhook') state.kv.set(HELD_WEBHOOK_RUNS, name, clock.now());
      logger.info({ job: name, trigger, pausedBy: paused.pausedBy }, 'run not started: the job is paused');
      return SKIPPED;
    }
    const startedAt = clock.now();
    const result = await run(name, trigger, signal, requestedBy);
    const held = state.kv.get(HELD_WEBHOOK_RUNS, name);
    // A run that read the changes makes the held nudge moot, unless a webhook was held back after it started.
    if (typeof held === 'number' && held <= startedAt && result.outcome !== 'failed') {
      state.kv.delete(HELD_WEBHOOK_RUNS, name);
    }
    return result;
  };
}

/** The jobs whose webhooks came while they were paused, and that are no longer paused: each owes a webhook run. */
export function heldWebhookRuns(state: StateStore): string[] {
  return state.kv.keys(HELD_WEBHOOK_RUNS).filter((job) => state.pausedJobs.get(job) === null);
}
