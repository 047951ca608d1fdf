import { deepScrub } from '../log/deep-scrub.js';
import type {
  ApiStatus,
  ConsoleData,
  ConnectorCheck,
  DeadLetterStatus,
  JobStatus,
  LeadershipStatus,
  OpsProviders,
  OutboxStatus,
} from './providers.js';
import type { NotificationChannelStatus } from './notifications-view.js';
import type { Readiness } from './readiness.js';
import { jobCheck, jobNeedsAttention } from './readiness.js';

export interface JobView {
  name: string;
  schedule: string | null;
  running: boolean;
  lastRunAt: string | null;
  lastOutcome: string | null;
  lastError: string | null;
  nextRunAt: string | null;
  lastSuccessAt: string | null;
  freshness: string;
  /** Why readiness fails for the job, if it does. */
  freshnessDetail: string | null;
  /** Readiness fails for it, or its last run failed: the page highlights it. */
  attention: boolean;
  openDeadLetters: number | null;
  /** An operator paused the job: since when (ISO), by whom, why. */
  paused: { since: string; by: string; reason: string | null } | null;
}

export type HeadlineLevel = 'ok' | 'warn' | 'bad';

export interface Headline {
  level: HeadlineLevel;
  text: string;
}

export interface StatusSnapshot {
  generatedAt: string;
  /** What the page says first: readiness, failing jobs and connectors down. */
  headline: Headline;
  version: string | null;
  timezone: string | null;
  startedAt: string | null;
  ready: boolean;
  /** Whether this instance runs the jobs; a single instance (SQLite state) always leads. */
  role: 'leader' | 'standby';
  /** This instance's name in leader election; null on a single instance. */
  instance: string | null;
  /** The instance that leads, as this one last saw it; null on a single instance or when none leads. */
  leader: LeadershipStatus['leader'];
  /** Why the state database could not be read for the election (names state.url); null when it could. */
  leadershipError: string | null;
  reasons: Readiness['reasons'];
  jobs: JobView[];
  deadLetters: DeadLetterStatus | null;
  outbox: OutboxStatus | null;
  /** Absent or null when no notifications are configured. */
  notifications?: readonly NotificationChannelStatus[] | null;
  connectors: Array<ConnectorCheck & { checkedAtIso: string }>;
  api: (Omit<ApiStatus, 'lastReachedAt'> & { lastReachedAt: string | null }) | null;
  /** Recent runs per job, activity and dead letters by reason; null when not available. */
  console?: ConsoleData | null;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

async function optional<T>(load: (() => T | Promise<T>) | undefined): Promise<T | null> {
  if (load === undefined) return null;
  try {
    return await load();
  } catch {
    // A provider failure shows up in readiness; the status page shows what it can.
    return null;
  }
}

function jobView(
  job: JobStatus,
  now: number,
  knownSecrets: readonly string[],
  timeZone: string | undefined,
): JobView {
  const check = jobCheck(job, now, knownSecrets, timeZone);
  return {
    name: job.name,
    schedule: job.schedule ?? null,
    running: job.running ?? false,
    lastRunAt: iso(job.lastRunAt),
    lastOutcome: job.lastOutcome ?? null,
    lastError: job.lastError ?? null,
    nextRunAt: iso(job.nextRunAt),
    lastSuccessAt: iso(job.lastSuccessAt),
    freshness: check.state,
    freshnessDetail: check.detail ?? null,
    attention: jobNeedsAttention(job, check),
    openDeadLetters: job.openDeadLetters ?? null,
    paused:
      job.paused === undefined
        ? null
        : { since: new Date(job.paused.since).toISOString(), by: job.paused.by, reason: job.paused.reason },
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Not only readiness: a failing job or a connector down shows even while readiness holds. */
export function headlineFor(
  readiness: Readiness,
  jobs: readonly JobView[],
  connectors: readonly ConnectorCheck[],
): Headline {
  const { ready } = readiness;
  const refused = readiness.reasons
    .filter((reason) => reason.check === 'api' && reason.state === 'refused')
    .map(
      (reason) =>
        `the API refused the ${reason.name ?? ''} key (${reason.code ?? ''}: fix ${reason.configKey ?? ''})`,
    );
  const failingJobs = jobs.filter((job) => job.attention).map((job) => job.name);
  const down = connectors.filter((c) => !c.ok).map((c) => c.name);
  const problems = [
    ...refused,
    ...(failingJobs.length > 0
      ? [`${plural(failingJobs.length, 'job')} failing (${failingJobs.join(', ')})`]
      : []),
    ...(down.length > 0 ? [`${plural(down.length, 'connector')} down (${down.join(', ')})`] : []),
  ];
  if (!ready) {
    return { level: 'bad', text: problems.length > 0 ? `Not ready: ${problems.join('; ')}` : 'Not ready' };
  }
  if (problems.length > 0) return { level: 'warn', text: `Ready, but ${problems.join('; ')}` };
  return { level: 'ok', text: 'Ready: all jobs and connectors healthy' };
}

/** Everything the status page shows, with secret-named fields censored and every string scrubbed. */
export async function buildStatusSnapshot(
  providers: OpsProviders,
  readiness: Readiness,
  now: number,
  knownSecrets: readonly string[],
): Promise<StatusSnapshot> {
  const [jobs, connectors, api, outbox, deadLetters, notifications] = await Promise.all([
    optional(() => providers.jobs()),
    optional(() => providers.connectors()),
    optional(() => providers.api()),
    optional(providers.outbox?.bind(providers)),
    optional(providers.deadLetters?.bind(providers)),
    optional(providers.notifications?.bind(providers)),
  ]);
  const consoleData = await optional(providers.console?.bind(providers));
  const info = providers.info?.();
  const jobViews = (jobs ?? []).map((job) => jobView(job, now, knownSecrets, info?.timezone));
  const leadership = providers.leadership?.();
  const snapshot: StatusSnapshot = {
    generatedAt: new Date(now).toISOString(),
    headline: headlineFor(readiness, jobViews, connectors ?? []),
    version: info?.version ?? null,
    timezone: info?.timezone ?? null,
    startedAt: iso(info?.startedAt),
    ready: readiness.ready,
    role: leadership?.role ?? 'leader',
    instance: leadership?.instance ?? null,
    leader: leadership?.leader ?? null,
    leadershipError: leadership?.lastError ?? null,
    reasons: readiness.reasons,
    jobs: jobViews,
    deadLetters,
    outbox,
    notifications,
    connectors: (connectors ?? []).map((c) => ({ ...c, checkedAtIso: new Date(c.checkedAt).toISOString() })),
    api: api === null ? null : { ...api, lastReachedAt: iso(api.lastReachedAt) },
    console: consoleData,
  };
  return deepScrub(snapshot, knownSecrets) as StatusSnapshot;
}
