import { scrubSecrets } from '../log/scrub.js';
import type { ConnectorCheck, JobStatus, OpsProviders, ReadinessPolicy } from './providers.js';

export type CheckKind = 'state' | 'api' | 'connector' | 'job';

export type CheckState =
  | 'ok'
  | 'fresh'
  | 'not_due'
  | 'due'
  | 'unchecked'
  | 'failing'
  | 'overdue'
  | 'unreachable'
  | 'stale'
  | 'never_reached'
  | 'not_writable'
  | 'error';

export interface ReadinessCheck {
  check: CheckKind;
  name?: string;
  ok: boolean;
  state: CheckState;
  detail?: string;
}

export interface Readiness {
  ready: boolean;
  checks: ReadinessCheck[];
  /** The failing checks, the body of a 503. */
  reasons: ReadinessCheck[];
}

/**
 * Job freshness. A job that owes no run (its last success is after its last scheduled time) is "not due",
 * whatever its age, so a nightly job is fine all day. A job that owes a run is "due" for up to its freshness
 * window, then "failing" (its last run failed) or "overdue" (it has not run successfully since).
 */
export function jobCheck(job: JobStatus, now: number, knownSecrets: readonly string[] = []): ReadinessCheck {
  const base = { check: 'job' as const, name: job.name };
  if (job.freshnessMs === undefined) return { ...base, ok: true, state: 'unchecked' };
  if (job.dueSince === undefined || job.dueSince > now) {
    const fresh = job.lastSuccessAt !== undefined && now - job.lastSuccessAt <= job.freshnessMs;
    return { ...base, ok: true, state: fresh ? 'fresh' : 'not_due' };
  }
  const owedMs = now - job.dueSince;
  if (owedMs <= job.freshnessMs) return { ...base, ok: true, state: 'due' };
  const since = new Date(job.dueSince).toISOString();
  if (job.lastOutcome === 'failed') {
    const error = job.lastError === undefined ? '' : `: ${scrubSecrets(job.lastError, knownSecrets)}`;
    return {
      ...base,
      ok: false,
      state: 'failing',
      detail: `no successful run since ${since}; last run failed${error}`,
    };
  }
  return { ...base, ok: false, state: 'overdue', detail: `no successful run since ${since}` };
}

function connectorCheck(
  connector: ConnectorCheck,
  now: number,
  policy: ReadinessPolicy,
  knownSecrets: readonly string[],
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
      detail: `last checked ${new Date(connector.checkedAt).toISOString()}`,
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
  const checks: ReadinessCheck[] = [];

  const state = await settle(() => providers.checkStateWritable());
  checks.push(
    state.ok
      ? { check: 'state', ok: true, state: 'ok' }
      : { check: 'state', ok: false, state: 'not_writable', detail: scrub(state.error) },
  );

  const api = await settle(() => providers.api());
  if (!api.ok) checks.push({ check: 'api', ok: false, state: 'error', detail: scrub(api.error) });
  else if (api.value.lastReachedAt === undefined) {
    checks.push({ check: 'api', ok: false, state: 'never_reached', detail: 'the API has not answered yet' });
  } else if (now - api.value.lastReachedAt > policy.apiMaxSilenceMs) {
    const lastError = api.value.lastError === undefined ? '' : `; last error: ${scrub(api.value.lastError)}`;
    const at = new Date(api.value.lastReachedAt).toISOString();
    checks.push({ check: 'api', ok: false, state: 'unreachable', detail: `last reached ${at}${lastError}` });
  } else checks.push({ check: 'api', ok: true, state: 'ok' });

  const connectors = await settle(() => providers.connectors());
  if (!connectors.ok)
    checks.push({ check: 'connector', ok: false, state: 'error', detail: scrub(connectors.error) });
  else for (const c of connectors.value) checks.push(connectorCheck(c, now, policy, knownSecrets));

  const jobs = await settle(() => providers.jobs());
  if (!jobs.ok) checks.push({ check: 'job', ok: false, state: 'error', detail: scrub(jobs.error) });
  else for (const job of jobs.value) checks.push(jobCheck(job, now, knownSecrets));

  const reasons = checks.filter((check) => !check.ok);
  return { ready: reasons.length === 0, checks, reasons };
}
