/**
 * Everything a job needs, built from a loaded config: state store, logger, API clients per side, connectors, and
 * the jobs themselves. Shared by `run` (the daemon), `sync` (one job once) and `demo`.
 */
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { createApiClient, type ApiClient, type ApiCallEvent, type DriftEvent } from '../client/index.js';
import { proxySecrets, resolveProxySettings } from '../client/network.js';
import { redactionPaths, secretValues, type LoadedConfig } from '../config/index.js';
import type { Connector } from '../connectors/index.js';
import type { Job } from '../engine/index.js';
import { createLogger, wantsPretty } from '../log/index.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { openStateStore, type StateStore } from '../state/index.js';
import { openApiEndpoint, type ApiEndpoint } from './api-endpoint.js';
import { apiNetworkOptions } from './api-network.js';
import type { Registries } from './builtin.js';
import type { ApiSide, FlowDefinition, Mappings } from './flow-definition.js';

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
  registries: Registries;
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
  const { loaded, registries } = options;
  const { config } = loaded;
  const clock = options.clock ?? systemClock;
  const closers: (() => Promise<void> | void)[] = [];
  const apiKeys: string[] = [];
  const configSecrets = secretValues(config, registries.config);
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
      redactPaths: redactionPaths({ registry: registries.config, prefix: 'config' }),
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
    const state = options.state ?? openStateStore({ file: config.state.path, clock });
    if (options.state === undefined) closers.push(() => state.close());
    const endpoint = await openApiEndpoint(config, dirname(config.state.path));
    closers.push(() => endpoint.close());

    const enabledJobs = Object.entries(config.jobs).filter(([, job]) => job.enabled);
    const flowOf = (jobName: string, flowName: string): FlowDefinition => {
      const flow = registries.flows.get(flowName);
      if (flow === undefined) {
        const known = [...registries.flows.keys()].join(', ') || 'none';
        throw new UnknownFlowError(
          `${loaded.file}: jobs.${jobName}.flow: unknown flow "${flowName}" (known flows: ${known})`,
        );
      }
      return flow;
    };

    // The embedded sandbox runs in this process: no proxy or private CA stands between them.
    const network = endpoint.embedded ? undefined : apiNetworkOptions(config);
    if (network !== undefined) apiKeys.push(...proxySecrets(resolveProxySettings(network), network.proxy));
    const apis = new Map<ApiSide, ApiClient>();
    const sides = new Set(enabledJobs.map(([jobName, job]) => flowOf(jobName, job.flow).side));
    // Without jobs the daemon still watches the API (readiness, doctor), with the supplier-side key.
    if (sides.size === 0) sides.add('supplier');
    for (const side of sides) {
      const apiKey = endpoint.keyFor(side);
      apiKeys.push(apiKey);
      const auth =
        config.api.auth === 'oauth' && config.api.client_id !== undefined
          ? ({ mode: 'client_credentials', clientId: config.api.client_id } as const)
          : ({ mode: 'api_key' } as const);
      const api = createApiClient({
        baseUrl: endpoint.baseUrl,
        apiKey,
        auth,
        clock,
        logger: logger.child({ api: side }),
        rateLimit: { maxConcurrency: config.api.max_concurrency },
        retry: { deadlineMs: config.api.timeout },
        ...(endpoint.embedded ? { environment: 'sandbox' as const } : {}),
        // The embedded sandbox is reached directly, whatever proxy variables are set.
        network: network ?? { env: {} },
        ...(options.hooks?.onApiCall ? { onCall: (event) => options.hooks?.onApiCall?.(side, event) } : {}),
        ...(options.hooks?.onDrift ? { onDrift: options.hooks.onDrift } : {}),
      });
      apis.set(side, api);
      closers.push(() => api.close());
    }

    const baseDir = dirname(resolve(loaded.file));
    const connectors = new Map<string, Connector>();
    for (const [name, block] of Object.entries(config.connectors)) {
      const { type, ...rest } = block;
      const connector = await registries.connectors.create(type, rest, { name, baseDir });
      connectors.set(name, connector);
      closers.push(() => connector.close());
    }
    const connectorByName = (name: string): Connector => {
      const connector = connectors.get(name);
      if (connector === undefined) {
        throw new UnknownFlowError(
          `connector "${name}" is not configured under connectors in ${loaded.file}`,
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
          options: flow.options.parse(jobConfig.options),
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
