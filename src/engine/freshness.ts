import type { RunOutcome, RunRecord } from '../state/runs.js';
import type { StateStore } from '../state/store.js';

export interface JobFreshness {
  job: string;
  lastRun: RunRecord | null;
  /** End of the last run that ended ok (a partial run made progress but did not catch up). */
  lastSuccessAt: number | null;
  lastProgressAt: number | null;
  lastError: { at: number; message: string } | null;
  /** True while a run has started and not ended. */
  running: boolean;
  openDeadLetters: number;
}

const SUCCESS: readonly RunOutcome[] = ['ok'];
const PROGRESS: readonly RunOutcome[] = ['ok', 'partial'];

/** Freshness of one job, for /readyz, /status and `supply-sync status`. */
export function jobFreshness(state: StateStore, job: string, flow: string = job): JobFreshness {
  const lastRun = state.runs.last(job);
  const success = state.runs.last(job, SUCCESS);
  const progress = state.runs.last(job, PROGRESS);
  const failed = state.runs.last(job, ['failed', 'partial']);
  const lastError =
    failed && failed.error !== null && (success === null || failed.id > success.id)
      ? { at: failed.endedAt ?? failed.startedAt, message: failed.error }
      : null;
  return {
    job,
    lastRun,
    lastSuccessAt: success?.endedAt ?? null,
    lastProgressAt: progress?.endedAt ?? null,
    lastError,
    running: lastRun !== null && lastRun.endedAt === null,
    openDeadLetters: state.deadLetters.countOpen(flow),
  };
}

export interface StateOverview {
  jobs: JobFreshness[];
  openDeadLetters: number;
  outbox: { pending: number; dead: number };
  inbox: { pending: number; dispatched: number };
}

/** Everything the operations server and the status command read from the state, in one call. */
export function stateOverview(state: StateStore, jobs: readonly string[] = state.runs.jobs()): StateOverview {
  return {
    jobs: jobs.map((job) => jobFreshness(state, job)),
    openDeadLetters: state.deadLetters.countOpen(),
    outbox: state.outbox.depth(),
    inbox: state.inbox.counts(),
  };
}

export function outboxDepth(state: StateStore): { pending: number; dead: number } {
  return state.outbox.depth();
}

export function openDeadLetterCount(state: StateStore, flow?: string): number {
  return state.deadLetters.countOpen(flow);
}
