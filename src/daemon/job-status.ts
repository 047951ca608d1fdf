/** Job views for /status and /readyz, from run history and the schedule. */
import type { JobStatus } from '../ops/index.js';
import { nextFireTime } from '../scheduler/index.js';
import type { StateStore } from '../state/index.js';
import type { BuiltJob } from './environment.js';

export function jobStatuses(
  jobs: ReadonlyMap<string, BuiltJob>,
  state: StateStore,
  defaultTimezone: string,
  now: number,
  isRunning: (job: string) => boolean,
  nextRuns: ReadonlyMap<string, number | undefined>,
  preflightError: (job: string) => string | undefined = () => undefined,
): JobStatus[] {
  return [...jobs.entries()].map(([name, built]) => {
    const { schedule, freshness } = built.config;
    const timezone = built.config.timezone ?? defaultTimezone;
    const last = state.runs.last(name);
    const lastSuccess = state.runs.last(name, ['ok', 'partial']);
    const status: JobStatus = { name, running: isRunning(name) };
    if (schedule !== undefined) status.schedule = `${schedule} (${timezone})`;
    if (last !== null) {
      status.lastRunAt = last.startedAt;
      if (last.outcome !== null) status.lastOutcome = last.outcome;
      if (last.error !== null) status.lastError = last.error;
    }
    if (lastSuccess !== null) status.lastSuccessAt = lastSuccess.endedAt ?? lastSuccess.startedAt;
    const next = nextRuns.get(name);
    if (next !== undefined) status.nextRunAt = next;
    if (schedule !== undefined) {
      const owedSince = nextFireTime(schedule, lastSuccess?.startedAt ?? last?.startedAt ?? now, timezone);
      if (owedSince <= now) status.dueSince = owedSince;
    }
    if (freshness !== undefined) status.freshnessMs = freshness;
    const heldBack = preflightError(name);
    if (heldBack !== undefined) status.preflightError = heldBack;
    return status;
  });
}
