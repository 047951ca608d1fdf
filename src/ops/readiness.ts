import { scrubSecrets } from '../log/scrub.js';
import { labelledTime } from './time-format.js';
import type { ApiStatus, ConnectorCheck, JobStatus, OpsProviders, ReadinessPolicy } from './providers.js';

export type CheckKind = 'state' | 'api' | 'connector' | 'job';

export type CheckState =
  | 'ok'
  | 'fresh'
  | 'not_due'
  | 'due'
  | 'unchecked'
  | 'paused'
  | 'failing'
  | 'overdue'
  | 'unreachable'
  | 'stale'
  | 'never_reached'
  | 'refused'
  | 'not_writable'
  | 'error';

export interface ReadinessCheck {
  check: CheckKind;
  name?: string;
  ok: boolean;
  state: CheckState;
  detail?: string;
  /** The API's error code, for a refused credential. */
  code?: string;
  /** The config key to fix, where one is known. */
  configKey?: string;
}

export interface Readiness {
  ready: boolean;
  checks: ReadinessCheck[];
  /** The failing checks, the body of a 503. */
  reasons: ReadinessCheck[];
}

/**
 * Job health, the one model readiness, the status page, `status` and metrics read.
 * - A job that owes no run (its last success is after its last scheduled time) is "not due", whatever its age,
 *   so a nightly job is fine all day. A job that owes a run is "due" for up to its freshness window, then
 *   "failing" (its last run failed) or "overdue" (it has not run successfully since).
 * - A job that has never succeeded is "failing" as soon as a run failed, and "overdue" once its freshness has
 *   passed since the daemon started watching it: it is never measured from its last failed run.
 */
export function jobCheck(
  job: JobStatus,
  now: number,
  knownSecrets: readonly string[] = [],
  timeZone?: string,
): ReadinessCheck {
  const base = { check: 'job' as const, name: job.name };
  const lastError = job.lastError === undefined ? '' : `: ${scrubSecrets(job.lastError, knownSecrets)}`;
  // An operator's decision, not a fault: the job owes runs, and that is what was asked for.
  if (job.paused !== undefined)
    return { ...base, ok: true, state: 'paused', detail: pausedDetail(job.paused, timeZone) };
  if (job.preflightError !== undefined) {
    // Held back at start: its runs fail at once, so waiting for freshness to run out would only hide it.
    return {
      ...base,
      ok: false,
      state: 'failing',
      detail: `held back by the statement pre-flight: ${scrubSecrets(job.preflightError, knownSecrets)}`,
    };
  }
  if (job.freshnessMs === undefined) return { ...base, ok: true, state: 'unchecked' };
  if (job.lastSuccessAt === undefined) {
    if (job.lastOutcome === 'failed') {
      return {
        ...base,
        ok: false,
        state: 'failing',
        detail: `has never succeeded; last run failed${lastError}`,
      };
    }
    if (job.watchingSince !== undefined && now - job.watchingSince > job.freshnessMs) {
      const since = labelledTime(job.watchingSince, timeZone);
      return {
        ...base,
        ok: false,
        state: 'overdue',
        detail: `has not succeeded since the daemon started at ${since}`,
      };
    }
  }
  if (job.dueSince === undefined || job.dueSince > now) {
    const fresh = job.lastSuccessAt !== undefined && now - job.lastSuccessAt <= job.freshnessMs;
    return { ...base, ok: true, state: fresh ? 'fresh' : 'not_due' };
  }
  const owedMs = now - job.dueSince;
  if (owedMs <= job.freshnessMs) return { ...base, ok: true, state: 'due' };
  const since = labelledTime(job.dueSince, timeZone);
  if (job.lastOutcome === 'failed') {
    return {
      ...base,
      ok: false,
      state: 'failing',
      detail: `no successful run since ${since}; last run failed${lastError}`,
    };
  }
  return { ...base, ok: false, state: 'overdue', detail: `no successful run since ${since}` };
}

export function pausedDetail(paused: NonNullable<JobStatus['paused']>, timeZone?: string): string {
  const why = paused.reason === null ? '' : `: ${paused.reason}`;
  return `paused since ${labelledTime(paused.since, timeZone)} by ${paused.by}${why}`;
}

/** Whether a job needs attention on the status page: readiness fails for it, or its last run failed. */
export function jobNeedsAttention(job: JobStatus, check: ReadinessCheck): boolean {
  return !check.ok || job.lastOutcome === 'failed';
}

function apiChecks(
  api: ApiStatus,
  now: number,
  policy: ReadinessPolicy,
  scrub: (t: string) => string,
  timeZone: string | undefined,
): ReadinessCheck[] {
  const refused = api.credentialFailures ?? [];
  if (refused.length > 0) {
    return refused.map((failure) => ({
      check: 'api' as const,
      name: failure.side,
      ok: false,
      state: 'refused' as const,
      code: failure.code,
      configKey: failure.configKey,
      detail: `${failure.status} ${failure.code} on ${failure.call}: ${failure.fix} (${failure.configKey})`,
    }));
  }
  if (api.lastReachedAt === undefined) {
    const lastError = api.lastError === undefined ? '' : `; last error: ${scrub(api.lastError)}`;
    return [
      {
        check: 'api',
        ok: false,
        state: 'never_reached',
        detail: `no authenticated call to the API has succeeded yet${lastError}`,
      },
    ];
  }
  if (now - api.lastReachedAt > policy.apiMaxSilenceMs) {
    const lastError = api.lastError === undefined ? '' : `; last error: ${scrub(api.lastError)}`;
    const at = labelledTime(api.lastReachedAt, timeZone);
    return [{ check: 'api', ok: false, state: 'unreachable', detail: `last reached ${at}${lastError}` }];
  }
  return [{ check: 'api', ok: true, state: 'ok' }];
}

function connectorCheck(
  connector: ConnectorCheck,
  now: number,
  policy: ReadinessPolicy,
  knownSecrets: readonly string[],
  timeZone: string | undefined,
): ReadinessCheck {
  const base = { check: 'connector' as const, name: connector.name };
  const detail =
    connector.detail === undefined ? {} : { detail: scrubSecrets(connector.detail, knownSecrets) };
  if (!connector.ok) return { ...base, ok: false, state: 'unreachable', ...detail };
  if (now - connector.checkedAt > policy.connectorCheckMaxAgeMs) {
    return {
      ...base,
      ok: false,
      state: 'stale',
      detail: `last checked ${labelledTime(connector.checkedAt, timeZone)}`,
    };
  }
  return { ...base, ok: true, state: 'ok' };
}

async function settle<T>(
  load: () => T | Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  try {
    return { ok: true, value: await load() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export async function evaluateReadiness(
  providers: OpsProviders,
  now: number,
  policy: ReadinessPolicy,
  knownSecrets: readonly string[] = [],
): Promise<Readiness> {
  const scrub = (text: string) => scrubSecrets(text, knownSecrets);
  const timeZone = providers.info?.().timezone;
  const checks: ReadinessCheck[] = [];

  const state = await settle(() => providers.checkStateWritable());
  checks.push(
    state.ok
      ? { check: 'state', ok: true, state: 'ok' }
      : { check: 'state', ok: false, state: 'not_writable', detail: scrub(state.error) },
  );

  const api = await settle(() => providers.api());
  if (!api.ok) checks.push({ check: 'api', ok: false, state: 'error', detail: scrub(api.error) });
  else checks.push(...apiChecks(api.value, now, policy, scrub, timeZone));

  const connectors = await settle(() => providers.connectors());
  if (!connectors.ok)
    checks.push({ check: 'connector', ok: false, state: 'error', detail: scrub(connectors.error) });
  else for (const c of connectors.value) checks.push(connectorCheck(c, now, policy, knownSecrets, timeZone));

  const jobs = await settle(() => providers.jobs());
  if (!jobs.ok) checks.push({ check: 'job', ok: false, state: 'error', detail: scrub(jobs.error) });
  else for (const job of jobs.value) checks.push(jobCheck(job, now, knownSecrets, timeZone));

  const reasons = checks.filter((check) => !check.ok);
  return { ready: reasons.length === 0, checks, reasons };
}
