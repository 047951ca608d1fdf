import { deepScrub } from '../log/deep-scrub.js';
import type {
  ApiStatus,
  ConnectorCheck,
  DeadLetterStatus,
  JobStatus,
  OpsProviders,
  OutboxStatus,
} from './providers.js';
import type { Readiness } from './readiness.js';
import { jobCheck } from './readiness.js';

export interface JobView {
  name: string;
  schedule: string | null;
  running: boolean;
  lastRunAt: string | null;
  lastOutcome: string | null;
  lastError: string | null;
  nextRunAt: string | null;
  freshness: string;
}

export interface StatusSnapshot {
  generatedAt: string;
  ready: boolean;
  reasons: Readiness['reasons'];
  jobs: JobView[];
  deadLetters: DeadLetterStatus | null;
  outbox: OutboxStatus | null;
  connectors: Array<ConnectorCheck & { checkedAtIso: string }>;
  api: (Omit<ApiStatus, 'lastReachedAt'> & { lastReachedAt: string | null }) | null;
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

function jobView(job: JobStatus, now: number): JobView {
  return {
    name: job.name,
    schedule: job.schedule ?? null,
    running: job.running ?? false,
    lastRunAt: iso(job.lastRunAt),
    lastOutcome: job.lastOutcome ?? null,
    lastError: job.lastError ?? null,
    nextRunAt: iso(job.nextRunAt),
    freshness: jobCheck(job, now).state,
  };
}

/** Everything the status page shows, with secret-named fields censored and every string scrubbed. */
export async function buildStatusSnapshot(
  providers: OpsProviders,
  readiness: Readiness,
  now: number,
  knownSecrets: readonly string[],
): Promise<StatusSnapshot> {
  const [jobs, connectors, api, outbox, deadLetters] = await Promise.all([
    optional(() => providers.jobs()),
    optional(() => providers.connectors()),
    optional(() => providers.api()),
    optional(providers.outbox?.bind(providers)),
    optional(providers.deadLetters?.bind(providers)),
  ]);
  const snapshot: StatusSnapshot = {
    generatedAt: new Date(now).toISOString(),
    ready: readiness.ready,
    reasons: readiness.reasons,
    jobs: (jobs ?? []).map((job) => jobView(job, now)),
    deadLetters,
    outbox,
    connectors: (connectors ?? []).map((c) => ({ ...c, checkedAtIso: new Date(c.checkedAt).toISOString() })),
    api: api === null ? null : { ...api, lastReachedAt: iso(api.lastReachedAt) },
  };
  return deepScrub(snapshot, knownSecrets) as StatusSnapshot;
}
