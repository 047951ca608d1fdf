/**
 * The daemon's metrics and API health: counters fed by every API call from the first one, and gauges read at
 * scrape time from the state store and the health model once the metrics service watches them.
 */
import type { Logger } from 'pino';
import type { ApiCallEvent, DriftEvent } from '../../client/index.js';
import {
  ApiHealth,
  createOpsMetrics,
  DEFAULT_READINESS_POLICY,
  evaluateReadiness,
  type OpsMetrics,
  type OpsProviders,
} from '../../ops/index.js';
import type { Clock } from '../../shared/clock.js';
import type { StateStore } from '../../state/index.js';
import type { RunResult } from '../../engine/index.js';
import type { ApiSide } from '../../api-access/index.js';
import { recordOutcomeLabel } from '../status/health-views.js';
import type { EnvironmentHooks } from './environment.js';
import { packageVersion } from '../package/version.js';

/** What the gauges read; absent before the daemon has started and after it stopped. */
export interface GaugeSources {
  readonly state: StateStore;
  readonly clock: Clock;
  readonly providers: OpsProviders;
  readonly secrets: () => readonly string[];
}

export class DaemonMetrics {
  readonly metrics: OpsMetrics;
  readonly apiHealth: ApiHealth;
  #sources: GaugeSources | undefined;

  /**
   * `processMetrics: false` where the process has several daemons (an office) and reports them once itself;
   * `apiKeySetting` is the config key a refused key is fixed at, as the config names it.
   */
  constructor(options: { processMetrics?: boolean; apiKeySetting?: string } = {}) {
    this.apiHealth = new ApiHealth(options.apiKeySetting);
    this.metrics = createOpsMetrics({
      processMetrics: options.processMetrics !== false,
      version: packageVersion(),
      leader: () => {
        const providers = this.#sources?.providers;
        if (providers === undefined) return 0;
        return (providers.leadership?.().role ?? 'leader') === 'leader' ? 1 : 0;
      },
      // A state that cannot be read (PostgreSQL down) leaves these out of the scrape; readiness says why.
      outboxDepth: () => unlessUnreadable(() => this.#sources?.state.outbox.depth().pending ?? 0),
      deadLettersOpen: () => unlessUnreadable(() => this.#sources?.state.deadLetters.countOpenByFlow() ?? {}),
      health: async () => {
        const sources = this.#sources;
        if (sources === undefined) throw new Error('the daemon is not running');
        const { providers } = sources;
        const [readiness, jobs, connectors] = await Promise.all([
          evaluateReadiness(providers, sources.clock.now(), DEFAULT_READINESS_POLICY, sources.secrets()),
          // Readiness reports a failing read; the per-job and per-connector gauges are then left out.
          Promise.resolve()
            .then(() => providers.jobs())
            .catch(() => []),
          Promise.resolve()
            .then(() => providers.connectors())
            .catch(() => []),
        ]);
        return { readiness, jobs, connectors };
      },
      // Seconds since each stream last checkpointed: a stream that stops advancing shows here.
      lagSeconds: () => {
        const sources = this.#sources;
        if (sources === undefined) return {};
        const now = sources.clock.now();
        return unlessUnreadable(() =>
          Object.fromEntries(
            sources.state.cursors.list().map((cursor) => [cursor.stream, (now - cursor.updatedAt) / 1000]),
          ),
        );
      },
    });
  }

  /** Counts a finished run: by outcome, its duration, its records by outcome, and a failure. */
  recordRun(job: string, result: RunResult, durationMs: number): void {
    const { metrics } = this;
    metrics.runs.inc({ sync_job: job, outcome: result.outcome });
    metrics.runDuration.observe({ sync_job: job }, durationMs / 1000);
    for (const [kind, count] of Object.entries(result.counts)) {
      if (count > 0) metrics.records.inc({ sync_job: job, outcome: recordOutcomeLabel(kind) }, count);
    }
    if (result.outcome === 'failed') metrics.errors.inc({ sync_job: job, kind: 'run_failed' });
  }

  /** The gauges read these from now on (undefined: nothing to read). */
  watch(sources: GaugeSources | undefined): void {
    this.#sources = sources;
  }

  /** Hooks for the API clients: call counters, rate-limit waits, API health, schema drift. */
  hooks(clock: Clock, logger: () => Pick<Logger, 'error'>): EnvironmentHooks {
    const { metrics, apiHealth } = this;
    return {
      onApiCall: (side: ApiSide, event: ApiCallEvent) => {
        metrics.apiCalls.inc({
          route: event.route,
          status: String(event.status ?? event.errorCode ?? 'error'),
        });
        if (event.rateLimitWaitMs > 0) {
          metrics.rateLimitWaits.inc({ route: event.route });
          metrics.rateLimitWaitSeconds.inc({ route: event.route }, event.rateLimitWaitMs / 1000);
        }
        const call = {
          side,
          method: event.method,
          route: event.route,
          status: event.status,
          errorCode: event.errorCode,
        };
        const refused = apiHealth.record(call, clock.now());
        if (refused !== null) {
          logger().error(
            {
              code: refused.code,
              status: refused.status,
              call: refused.call,
              side: refused.side,
              configKey: refused.configKey,
            },
            `the API refused the ${refused.side} key (${refused.status} ${refused.code}): ${refused.fix} (${refused.configKey})`,
          );
        }
      },
      onDrift: (event: DriftEvent) => metrics.schemaDrift.inc({ resource: event.resource, kind: event.kind }),
    };
  }
}

function unlessUnreadable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
