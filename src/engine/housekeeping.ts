import { INBOX_RETENTION_MS } from '../state/inbox.js';
import type { StateStore } from '../state/store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionPolicy {
  /** Dispatched webhook events; never below 30 days, so redeliveries stay deduplicated. */
  inboxMs?: number;
  /** Done outbox entries; the API's idempotency window is 24 hours, so keep them longer than that. */
  outboxDoneMs?: number;
  /** Run history entries kept per job. */
  runsPerJob?: number;
  /** Finished runs older than this are pruned (`state.history.keep`). */
  runsMaxAgeMs?: number;
  /** The most runs kept, all jobs together (`state.history.max_runs`). */
  runsMax?: number;
  /** Resolved and discarded dead letters. */
  closedDeadLettersMs?: number;
}

export const DEFAULT_RETENTION: Required<RetentionPolicy> = {
  inboxMs: INBOX_RETENTION_MS,
  outboxDoneMs: 7 * DAY_MS,
  runsPerJob: 10_000,
  runsMaxAgeMs: 30 * DAY_MS,
  runsMax: 10_000,
  closedDeadLettersMs: 90 * DAY_MS,
};

export interface PruneCounts {
  inbox: number;
  outbox: number;
  runs: number;
  deadLetters: number;
}

/** Keeps the state file's size flat on a long-running daemon; run it daily. */
export function pruneState(state: StateStore, policy: RetentionPolicy = {}): PruneCounts {
  const p = { ...DEFAULT_RETENTION, ...policy };
  return state.transaction(() => ({
    inbox: state.inbox.prune(p.inboxMs),
    outbox: state.outbox.pruneDone(p.outboxDoneMs),
    runs: state.runs.prune(p.runsPerJob) + state.runs.pruneHistory(p.runsMaxAgeMs, p.runsMax),
    deadLetters: state.deadLetters.pruneClosed(p.closedDeadLettersMs),
  }));
}
