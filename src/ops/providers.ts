/** What the daemon runtime feeds the operations server. Every function is called per request. */
import type { CredentialFailure } from './api-health.js';
import type { NotificationChannelStatus } from './notifications-view.js';

type MaybePromise<T> = T | Promise<T>;

export interface JobStatus {
  name: string;
  /** Human-readable schedule, e.g. the cron expression and its time zone. */
  schedule?: string;
  running?: boolean;
  lastRunAt?: number;
  lastOutcome?: string;
  lastError?: string;
  /** End of the last run that made progress (ok or partial). */
  lastSuccessAt?: number;
  /** Start and duration of the last finished run. */
  lastDurationMs?: number;
  nextRunAt?: number;
  /** When the daemon started watching the job: a job that never succeeded owes a run from then. */
  watchingSince?: number;
  /** Open dead letters of the job's flow. */
  openDeadLetters?: number;
  /**
   * The earliest scheduled time after the last success that has already passed (the job owes a run since
   * then); undefined when no run is owed: the job is not due.
   */
  dueSince?: number;
  /** How long a job may owe a run before readiness fails; undefined: freshness not checked. */
  freshnessMs?: number;
  /** Why the job is held back: its connector settings fail the pre-flight (file, config key, bad name). */
  preflightError?: string;
  /** An operator paused the job: no scheduled, catch-up or webhook runs until it is resumed. */
  paused?: JobPause;
}

export interface JobPause {
  since: number;
  by: string;
  reason: string | null;
}

export interface ConnectorCheck {
  name: string;
  ok: boolean;
  /** When the cached check ran. */
  checkedAt: number;
  detail?: string;
}

export interface ApiStatus {
  baseUrl?: string;
  environment?: string;
  /** When an authenticated call last succeeded. */
  lastReachedAt?: number;
  lastError?: string;
  /** Standing 401/403 answers: each fails readiness at once. */
  credentialFailures?: readonly CredentialFailure[];
}

export interface OutboxStatus {
  pending: number;
  dead: number;
  oldestPendingAt?: number;
}

export interface DeadLetterReason {
  recordKey: string;
  reason: string;
  lastSeen: number;
}

export interface DeadLetterFlow {
  flow: string;
  open: number;
  /** The most recent open dead letters, newest first. */
  latest: readonly DeadLetterReason[];
}

export interface DeadLetterStatus {
  open: number;
  byFlow?: Readonly<Record<string, number>>;
  flows?: readonly DeadLetterFlow[];
}

/** One run as the console shows it. */
export interface ConsoleRun {
  id: number;
  trigger: string;
  /** Who asked: an operator command's caller, else the trigger. */
  requestedBy: string;
  startedAt: number;
  endedAt: number | null;
  outcome: string | null;
  counts: Readonly<Record<string, number>>;
  deadLetters: number | null;
  error: string | null;
}

export interface ConsoleJob {
  name: string;
  paused: boolean;
  /** Newest first. */
  runs: readonly ConsoleRun[];
  /** Records per hour over the last 24 hours, oldest hour first (each run counts its largest count). */
  recordsPerHour: readonly number[];
}

export interface DeadLetterGroup {
  flow: string;
  reason: string;
  count: number;
  ids: readonly number[];
  /** The record key of each of `ids` (the order or document a person can look up), in the same order. */
  keys: readonly string[];
  /** Those of `ids` queued for retry: the job's next run takes them up. */
  retrying: readonly number[];
}

/** What the status page shows as a console: recent runs per job, activity, dead letters by reason. */
export interface ConsoleData {
  jobs: readonly ConsoleJob[];
  deadLetterGroups: readonly DeadLetterGroup[];
  /** Per flow and missing mapping: the open letters it holds back and the fix (as the notifications give it). */
  missingMappingFixes?: readonly MissingMappingFixView[];
}

export interface MissingMappingFixView {
  flow: string;
  /** "skus value "VEG-0001" has no entry in mappings.skus" */
  summary: string;
  ids: readonly number[];
  fix: string;
}

export interface OpsProviders {
  /** Throws when the state file cannot be written (e.g. a write to a scratch row fails). */
  checkStateWritable(): MaybePromise<void>;
  api(): MaybePromise<ApiStatus>;
  connectors(): MaybePromise<readonly ConnectorCheck[]>;
  jobs(): MaybePromise<readonly JobStatus[]>;
  outbox?(): MaybePromise<OutboxStatus>;
  deadLetters?(): MaybePromise<DeadLetterStatus>;
  info?(): DaemonInfo;
  /** Who leads, where instances share a PostgreSQL state; absent on a single instance (SQLite). */
  leadership?(): LeadershipStatus;
  /** Each notification channel's queue; absent when no notifications are configured. */
  notifications?(): MaybePromise<readonly NotificationChannelStatus[]>;
  /** Recent runs, activity and dead letters by reason for the status page's console. */
  console?(): MaybePromise<ConsoleData>;
}

/** This instance's role in leader election and the leader it last saw. */
export interface LeadershipStatus {
  role: 'leader' | 'standby';
  /** This instance's name (ha.instance). */
  instance: string;
  /** The current leader; null when none leads or the state database cannot be reached. */
  leader: { instance: string; since: string; epoch: number } | null;
  /** Why the state database could not be used for election (names state.url, no password); null when it can. */
  lastError: string | null;
}

export interface ReadinessPolicy {
  /** The API must have answered within this window. */
  apiMaxSilenceMs: number;
  /** Connector check results older than this count as unknown. */
  connectorCheckMaxAgeMs: number;
}

/** What the status page shows about the daemon itself. */
export interface DaemonInfo {
  version: string;
  /** IANA time zone the page shows times in. */
  timezone: string;
  startedAt?: number;
}

export const DEFAULT_READINESS_POLICY: ReadinessPolicy = {
  apiMaxSilenceMs: 15 * 60_000,
  connectorCheckMaxAgeMs: 10 * 60_000,
};
