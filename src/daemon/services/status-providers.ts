/** What /readyz, /status and the health gauges read: state, API health, connectors, jobs, outbox, dead letters. */
import type { ApiHealth, LeadershipStatus, OpsProviders } from '../../ops/index.js';
import type { StateStore } from '../../state/index.js';
import type { ClosableInbox } from '../../webhooks/index.js';
import type { ConnectorHealth } from './connector-health-service.js';
import type { Environment } from './environment.js';
import { consoleData } from '../status/console-data.js';
import { deadLetterStatus } from '../status/health-views.js';
import { jobStatuses } from '../status/job-status.js';
import type { PreflightGate } from './preflight-service.js';
import { packageVersion } from '../package/version.js';
import type { SchedulerService } from './scheduler-service.js';

export interface StatusSources {
  readonly env: Environment;
  readonly inbox: ClosableInbox;
  /** Where the write check writes: the state itself, or on a shared state a session that is never fenced. */
  readonly unfencedState: StateStore;
  /** Leader election, on a shared (PostgreSQL) state. */
  readonly leadership?: () => LeadershipStatus;
  readonly apiHealth: ApiHealth;
  readonly connectorHealth: ConnectorHealth;
  readonly scheduler: SchedulerService;
  readonly preflight: PreflightGate;
  /** When the daemon started watching, by its clock. */
  readonly startedAt: number;
}

export function statusProviders(sources: StatusSources): OpsProviders {
  const { env, inbox, apiHealth, connectorHealth, scheduler, preflight, startedAt, leadership } = sources;
  const { state, clock } = env;
  const { config } = env.loaded;
  return {
    checkStateWritable: () => {
      // The election's own connection says first why PostgreSQL cannot be used (it names state.url).
      const electionError = leadership?.().lastError ?? null;
      if (electionError !== null) throw new Error(electionError);
      writeHeartbeat(sources.unfencedState, clock.now(), config.state.url !== undefined);
      const inboxFailure = inbox.durabilityFailure();
      if (inboxFailure !== null) {
        throw new Error(
          `webhook inbox: a sync of its write-ahead log failed (${inboxFailure}); every webhook is refused with 503 until the daemon is restarted`,
        );
      }
    },
    api: () => ({
      baseUrl: env.endpoint.label,
      ...(apiHealth.lastReachedAt === undefined ? {} : { lastReachedAt: apiHealth.lastReachedAt }),
      ...(apiHealth.lastError === undefined ? {} : { lastError: apiHealth.lastError }),
      credentialFailures: apiHealth.credentialFailures(),
    }),
    connectors: () => connectorHealth.results(),
    jobs: () =>
      jobStatuses({
        jobs: [...env.jobs.entries()].map(([name, built]) => [name, built.config] as const),
        state,
        defaultTimezone: config.timezone,
        now: clock.now(),
        isRunning: (job) => scheduler.isRunning(job),
        nextRuns: scheduler.nextRuns(),
        watchingSince: startedAt,
        preflightError: (job) => preflight.reason(job),
      }),
    outbox: () => state.outbox.depth(),
    deadLetters: () => deadLetterStatus(state),
    ...(config.notifications === undefined ? {} : { notifications: () => state.notifications.summary() }),
    info: () => ({ version: packageVersion(), timezone: config.timezone, startedAt }),
    console: () => consoleData(state, [...env.jobs.keys()], clock.now(), env.loaded.file),
    ...(leadership === undefined ? {} : { leadership }),
  };
}

function writeHeartbeat(state: StateStore, now: number, shared: boolean): void {
  try {
    state.kv.set('daemon', 'heartbeat', now);
  } catch (error) {
    if (!shared) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `state.url: cannot write the PostgreSQL state at ${state.location} (${reason}); no instance leads until it can`,
    );
  }
}
