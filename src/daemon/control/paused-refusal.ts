/** An operator's pause holds a run now back as it holds the daemon's runs: the refusal every path gives. */
import type { PausedJob } from '../../state/index.js';
import { labelledTime } from '../../ops/time-format.js';
import { ControlError } from './actions.js';

/** Refuses a run of a paused job, saying since when, by whom, and what to do. */
export function requireNotPaused(
  job: string,
  state: { readonly pausedJobs: { get(job: string): PausedJob | null } },
  timeZone: string,
): void {
  const paused = state.pausedJobs.get(job);
  if (paused === null) return;
  throw new ControlError(
    'job_paused',
    `job "${job}" is paused (since ${labelledTime(paused.pausedAt, timeZone)} by ${paused.pausedBy}` +
      `${paused.reason === null ? '' : `: ${paused.reason}`}); resume it first with \`supply-sync jobs resume ${job}\``,
  );
}
