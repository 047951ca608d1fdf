/** The status page's console, read from the state: recent runs per job, records per hour, dead letters by reason. */
import type { ConsoleData, ConsoleJob, MissingMappingFixView } from '../../ops/index.js';
import { missingMappingFixes, missingMappingSummary } from '../../shared/missing-mapping.js';
import type { RunRecord, StateStore } from '../../state/index.js';

const HOUR_MS = 60 * 60_000;
const HOURS = 24;
const RECENT_RUNS = 8;

/** A run's records: its largest count (a run that fetched 10 orders and wrote 10 handled 10 records). */
function records(run: RunRecord): number {
  return Math.max(0, ...Object.values(run.counts));
}

function recordsPerHour(state: StateStore, job: string, now: number): number[] {
  const hours = new Array<number>(HOURS).fill(0);
  const since = now - HOURS * HOUR_MS;
  for (const run of state.runs.list({ job, since, limit: 10_000 })) {
    const hour = Math.min(HOURS - 1, Math.floor((run.startedAt - since) / HOUR_MS));
    hours[hour] = (hours[hour] ?? 0) + records(run);
  }
  return hours;
}

/** The fixes for the open letters held back for a missing mapping, naming `configFile`. */
function fixViews(state: StateStore, configFile: string): MissingMappingFixView[] {
  return missingMappingFixes(state.deadLetters.list(), configFile).map((group) => ({
    flow: group.flow,
    summary: missingMappingSummary(group.missing),
    ids: group.ids,
    fix: group.fix,
  }));
}

export function consoleData(
  state: StateStore,
  jobs: readonly string[],
  now: number,
  configFile: string,
): ConsoleData {
  const consoleJobs: ConsoleJob[] = jobs.map((name) => ({
    name,
    paused: state.pausedJobs.get(name) !== null,
    runs: state.runs.recent(name, RECENT_RUNS).map((run) => ({
      id: run.id,
      trigger: run.trigger,
      requestedBy: run.requestedBy,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
      outcome: run.outcome,
      counts: run.counts,
      deadLetters: run.deadLetters,
      error: run.error,
    })),
    recordsPerHour: recordsPerHour(state, name, now),
  }));
  return {
    jobs: consoleJobs,
    deadLetterGroups: state.deadLetters.groupsByReason(),
    missingMappingFixes: fixViews(state, configFile),
  };
}
