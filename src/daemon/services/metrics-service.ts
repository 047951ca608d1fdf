/**
 * Metrics and the API probe: the gauges read this daemon's state and health model while it runs, and a cheap
 * authenticated call keeps "API reached" current between runs.
 */
import { ApiError } from '../../client/index.js';
import type { OpsProviders } from '../../ops/index.js';
import { isCredentialCode } from '../../shared/api-fixes.js';
import type { Environment } from './environment.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import { every, stopLoop, type Loop } from './every.js';
import type { Service, StopOptions } from './service.js';

/**
 * Probe once no call has succeeded for 5 minutes (spares small plans' daily quotas), every minute while the key is
 * refused or the API unreached, so a fix shows within a minute.
 */
const API_PROBE_QUIET_MS = 5 * 60_000;
const API_PROBE_TICK_MS = 60_000;

export class MetricsService implements Service {
  readonly name = 'metrics and API probe';
  #loop: Loop | undefined;

  constructor(
    private readonly env: Environment,
    private readonly daemonMetrics: DaemonMetrics,
    private readonly providers: OpsProviders,
  ) {}

  /** A second start while running does nothing; `signal` gives up the first probe. */
  async start(signal?: AbortSignal): Promise<void> {
    const { env, daemonMetrics } = this;
    if (this.#loop !== undefined) return;
    daemonMetrics.watch({
      state: env.state,
      clock: env.clock,
      providers: this.providers,
      secrets: env.secrets,
    });
    await this.probe(signal);
    const { apiHealth } = daemonMetrics;
    const probeIfDue = async (loopSignal: AbortSignal): Promise<void> => {
      const reached = apiHealth.lastReachedAt;
      const unhealthy = reached === undefined || apiHealth.credentialFailures().length > 0;
      if (unhealthy || env.clock.now() - reached >= API_PROBE_QUIET_MS) await this.probe(loopSignal);
    };
    this.#loop = every(
      env.clock,
      API_PROBE_TICK_MS,
      probeIfDue,
      (error) => env.logger.warn({ err: error }, 'API probe failed'),
      env.loopClock,
    );
  }

  async stop(options: StopOptions): Promise<void> {
    const loop = this.#loop;
    this.#loop = undefined;
    await stopLoop(loop, options, this.env.logger, 'API probe');
    this.daemonMetrics.watch(undefined);
  }

  private async probe(signal?: AbortSignal): Promise<void> {
    for (const api of this.env.apis.values()) {
      await api.account.me(signal === undefined ? {} : { signal }).catch((error: unknown) => {
        // A refused key is expected, and logged once at error with its fix when the API health records it.
        if (signal?.aborted === true || refusesKey(error)) return;
        this.env.logger.warn({ err: error }, 'GET /me failed');
      });
    }
  }
}

function refusesKey(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.status === 401 || error.status === 403) &&
    isCredentialCode(error.code)
  );
}
