/** Job views for /status, /readyz, metrics and `supply-sync status`, from run history and the schedule. */
import type { JobConfig } from '../../config/index.js';
import type { JobStatus } from '../../ops/index.js';
import { nextFireTime } from '../../scheduler/index.js';
import type { StateStore } from '../../state/index.js';

export interface JobStatusInput {
  /** Each job's name and config, in the order to show. */
  jobs: Iterable<readonly [string, JobConfig]>;
  state: StateStore;
  defaultTimezone: string;
  now: number;
  isRunning?: (job: string) => boolean;
  nextRuns?: ReadonlyMap<string, number | undefined>;
  /** When the daemon started; a job that never succeeded owes a run from then (from `now` without a daemon). */
  watchingSince?: number;
  /** Why the statement pre-flight holds a job back, if it does. */
  preflightError?: (job: string) => string | undefined;
}

export function jobStatuses(input: JobStatusInput): JobStatus[] {
  const { state, now } = input;
  const since = input.watchingSince ?? now;
  return [...input.jobs].map(([name, config]) => {
    const { schedule, freshness } = config;
    const timezone = config.timezone ?? input.defaultTimezone;
    const last = state.runs.last(name);
    const lastSuccess = state.runs.last(name, ['ok', 'partial']);
    const status: JobStatus = {
      name,
      running: input.isRunning?.(name) ?? false,
      openDeadLetters: state.deadLetters.countOpen(name),
    };
    if (input.watchingSince !== undefined) status.watchingSince = input.watchingSince;
    if (schedule !== undefined) status.schedule = `${schedule} (${timezone})`;
    if (last !== null) {
      status.lastRunAt = last.startedAt;
      if (last.outcome !== null) status.lastOutcome = last.outcome;
      if (last.error !== null) status.lastError = last.error;
      if (last.endedAt !== null) status.lastDurationMs = last.endedAt - last.startedAt;
    }
    if (lastSuccess !== null) status.lastSuccessAt = lastSuccess.endedAt ?? lastSuccess.startedAt;
    if (schedule !== undefined) {
      // Owed since the first scheduled time after the last success; never measured from a failed run.
      const owedSince = nextFireTime(schedule, lastSuccess?.startedAt ?? since, timezone);
      if (owedSince <= now) status.dueSince = owedSince;
    }
    if (freshness !== undefined) status.freshnessMs = freshness;
    const paused = state.pausedJobs.get(name);
    if (paused !== null)
      status.paused = { since: paused.pausedAt, by: paused.pausedBy, reason: paused.reason };
    // The scheduler still keeps a paused job's times, but none of them runs it: a paused job has no next run.
    const next = paused === null ? input.nextRuns?.get(name) : undefined;
    if (next !== undefined) status.nextRunAt = next;
    const heldBack = input.preflightError?.(name);
    if (heldBack !== undefined) status.preflightError = heldBack;
    return status;
  });
}
