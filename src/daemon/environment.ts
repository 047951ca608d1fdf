/**
 * Everything a job needs, built from a loaded config: state store, logger, API clients per side, connectors, and
 * the jobs themselves. Shared by `run` (the daemon), `sync` (one job once) and `demo`.
 */
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { apiClientFor, openApiEndpoint, type ApiEndpoint } from '../api-access/index.js';
import type { ApiClient, ApiCallEvent, DriftEvent } from '../client/index.js';
import { proxySecrets, resolveProxySettings } from '../client/network.js';
import { redactionPaths, secretValues, type LoadedConfig } from '../config/index.js';
import type { Connector } from '../connector-contract/index.js';
import { errorMessage, type Job } from '../engine/index.js';
import { createLogger, wantsPretty } from '../log/index.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { LeadershipLostError, openConfiguredState, type StateStore } from '../state/index.js';
import { stateSessionOptions } from './leadership-settings.js';
import type { PluginRegistry } from './builtin.js';
import { ConfigNotBuildableError, requireParsedBy } from './parsed-config.js';
import type { ApiSide, FlowDefinition, Mappings } from '../plugin/index.js';

export interface BuiltJob {
  readonly job: Job;
  readonly flow: FlowDefinition;
  readonly config: LoadedConfig['config']['jobs'][string];
}

export interface EnvironmentHooks {
  onApiCall?: (side: ApiSide, event: ApiCallEvent) => void;
  onDrift?: (event: DriftEvent) => void;
}

export interface Environment {
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly state: StateStore;
  readonly endpoint: ApiEndpoint;
  readonly apis: ReadonlyMap<ApiSide, ApiClient>;
  readonly connectors: ReadonlyMap<string, Connector>;
  readonly jobs: ReadonlyMap<string, BuiltJob>;
  /** Every secret value known to the daemon, for scrubbing text shown to people. */
  secrets(): readonly string[];
  close(): Promise<void>;
}

export interface EnvironmentOptions {
  loaded: LoadedConfig;
  registry: PluginRegistry;
  clock?: Clock;
  logger?: Logger;
  hooks?: EnvironmentHooks;
  /** Extra secrets to scrub (e.g. webhook secrets kept in the state file). */
  extraSecrets?: () => readonly string[];
  /** The state store to use instead of the configured file (a dry run's private copy); closed by the caller. */
  state?: StateStore;
}

export class UnknownFlowError extends Error {
  readonly code = 'config_invalid';
}

export async function buildEnvironment(options: EnvironmentOptions): Promise<Environment> {
  const { loaded, registry } = options;
  const { config } = loaded;
  requireParsedBy(loaded, registry);
  const clock = options.clock ?? systemClock;
  const closers: (() => Promise<void> | void)[] = [];
  const apiKeys: string[] = [];
  const configSecrets = secretValues(config, registry);
  const secrets = (): readonly string[] => [
    ...configSecrets,
    ...apiKeys,
    ...(options.extraSecrets?.() ?? []),
  ];
  const logger =
    options.logger ??
    createLogger({
      level: config.log.level,
      name: 'supply-sync',
      pretty: wantsPretty(config.log.pretty, process.stdout.isTTY),
      timeZone: config.timezone,
      redactPaths: redactionPaths({ registry, prefix: 'config' }),
      knownSecrets: secrets,
    });

  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error) {
        logger.warn({ err: error }, 'error while closing');
      }
    }
  };

  try {
    const state = options.state ?? openConfiguredState(config.state, clock, stateSessionOptions(config));
    if (options.state === undefined) closers.push(() => state.close());
    const endpoint = await openApiEndpoint(config, {
      statePath: join(dirname(config.state.path), 'sandbox.db'),
      allowHttpWebhooks: true,
    });
    closers.push(() => endpoint.close());

    const enabledJobs = Object.entries(config.jobs).filter(([, job]) => job.enabled);
    const flowOf = (jobName: string, flowName: string): FlowDefinition => {
      const flow = registry.flow(flowName);
      if (flow === undefined) {
        const known = registry.flowNames().join(', ') || 'none';
        throw new UnknownFlowError(
          `${loaded.file}: jobs.${jobName}.flow: unknown flow "${flowName}" (known flows: ${known})`,
        );
      }
      return flow;
    };

    const network = endpoint.network;
    if (network !== undefined) apiKeys.push(...proxySecrets(resolveProxySettings(network), network.proxy));
    const apis = new Map<ApiSide, ApiClient>();
    const sides = new Set(enabledJobs.map(([jobName, job]) => flowOf(jobName, job.flow).side));
    // Without jobs the daemon still watches the API (readiness, doctor), with the supplier-side key.
    if (sides.size === 0) sides.add('supplier');
    for (const side of sides) {
      apiKeys.push(endpoint.keyFor(side));
      const onApiCall = options.hooks?.onApiCall;
      const api = apiClientFor(config, endpoint, side, {
        clock,
        logger: logger.child({ api: side }),
        // On a shared state, no write reaches the API once this instance has lost its term (a no-op on a file).
        beforeWrite: () => checkTermBeforeWrite(state),
        ...(onApiCall ? { onCall: (event: ApiCallEvent) => onApiCall(side, event) } : {}),
        ...(options.hooks?.onDrift ? { onDrift: options.hooks.onDrift } : {}),
      });
      apis.set(side, api);
      closers.push(() => api.close());
    }

    const baseDir = dirname(resolve(loaded.file));
    const connectors = new Map<string, Connector>();
    for (const [name, block] of Object.entries(config.connectors)) {
      const { type, ...parsed } = block; // parsed by the type's schema when the config was loaded
      const connector = await registry.createParsedConnector(type, parsed, { name, baseDir });
      connectors.set(name, connector);
      closers.push(() => connector.close());
    }
    const connectorByName = (name: string): Connector => {
      const connector = connectors.get(name);
      if (connector === undefined) {
        throw new ConfigNotBuildableError(
          `${loaded.file}: connectors: no connector named "${name}" (configured: ${[...connectors.keys()].join(', ') || 'none'})`,
        );
      }
      return connector;
    };

    const jobs = new Map<string, BuiltJob>();
    for (const [jobName, jobConfig] of enabledJobs) {
      const flow = flowOf(jobName, jobConfig.flow);
      const api = apis.get(flow.side);
      if (api === undefined) throw new Error(`no API client for side ${flow.side}`);
      const job = flow.create(
        {
          name: jobName,
          ...(jobConfig.connector === undefined ? {} : { connector: jobConfig.connector }),
          // Parsed by the flow's schema when the config was loaded.
          options: jobConfig.options,
        },
        {
          api,
          connector: connectorByName,
          state,
          mappings: config.mappings as Mappings,
          logger: logger.child({ job: jobName }),
          clock,
          workDir: dirname(config.state.path),
        },
      );
      jobs.set(jobName, { job, flow, config: jobConfig });
    }

    return {
      loaded,
      logger,
      clock,
      state,
      endpoint,
      apis,
      connectors,
      jobs,
      secrets,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * The fence check before an API write. A lease that cannot be read (PostgreSQL unreachable) refuses the write as a
 * lost term does: the instance cannot know it still leads, and the run must stop rather than file the record as a
 * dead letter.
 */
function checkTermBeforeWrite(state: StateStore): void {
  try {
    state.checkFence();
  } catch (error) {
    if (error instanceof Error && error.name === 'LeadershipLostError') throw error; // src/state's or src/ha's
    throw new LeadershipLostError(
      `the lease could not be checked before an API write, so it is not sent: ${errorMessage(error)}`,
    );
  }
}
