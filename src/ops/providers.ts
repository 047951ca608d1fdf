/** What the daemon runtime feeds the operations server. Every function is called per request. */

type MaybePromise<T> = T | Promise<T>;

export interface JobStatus {
  name: string;
  /** Human-readable schedule, e.g. the cron expression and its time zone. */
  schedule?: string;
  running?: boolean;
  lastRunAt?: number;
  lastOutcome?: string;
  lastError?: string;
  lastSuccessAt?: number;
  nextRunAt?: number;
  /**
   * The earliest scheduled time after the last success that has already passed (the job owes a run since
   * then); undefined when no run is owed: the job is not due.
   */
  dueSince?: number;
  /** How long a job may owe a run before readiness fails; undefined: freshness not checked. */
  freshnessMs?: number;
  /** Why the job is held back: its connector settings fail the pre-flight (file, config key, bad name). */
  preflightError?: string;
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
  lastReachedAt?: number;
  lastError?: string;
}

export interface OutboxStatus {
  pending: number;
  dead: number;
  oldestPendingAt?: number;
}

export interface DeadLetterStatus {
  open: number;
  byFlow?: Readonly<Record<string, number>>;
}

export interface OpsProviders {
  /** Throws when the state file cannot be written (e.g. a write to a scratch row fails). */
  checkStateWritable(): MaybePromise<void>;
  api(): MaybePromise<ApiStatus>;
  connectors(): MaybePromise<readonly ConnectorCheck[]>;
  jobs(): MaybePromise<readonly JobStatus[]>;
  outbox?(): MaybePromise<OutboxStatus>;
  deadLetters?(): MaybePromise<DeadLetterStatus>;
}

export interface ReadinessPolicy {
  /** The API must have answered within this window. */
  apiMaxSilenceMs: number;
  /** Connector check results older than this count as unknown. */
  connectorCheckMaxAgeMs: number;
}

export const DEFAULT_READINESS_POLICY: ReadinessPolicy = {
  apiMaxSilenceMs: 15 * 60_000,
  connectorCheckMaxAgeMs: 10 * 60_000,
};
