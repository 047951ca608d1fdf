/**
 * The parts of an environment, each a service of the lifecycle that opens them: the state store, the API endpoint,
 * one API client per side the jobs use, the connectors, then the jobs built on them. Opened in that order, closed
 * in reverse.
 */
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import {
  apiClientFor,
  embeddedSandboxFile,
  openApiEndpoint,
  type ApiEndpoint,
} from '../../api-access/index.js';
import type { ApiCallEvent, ApiClient } from '../../client/index.js';
import { proxySecrets, resolveProxySettings } from '../../client/network.js';
import type { LoadedConfig } from '../../config/index.js';
import type { CommitAllowance, Connector } from '../../connector-contract/index.js';
import type { Job } from '../../engine/index.js';
import type { ApiSide, Mappings } from '../../plugin/index.js';
import type { Clock } from '../../shared/clock.js';
import { openConfiguredState, type StateStore } from '../../state/index.js';
import type { PluginRegistry } from '../plugins/builtin.js';
import { MappingsHolder, pinnedPerRun, type MappingsProblem } from '../jobs/mappings.js';
import { leadershipSettings, stateSessionOptions } from '../start/leadership-settings.js';
import { ConfigNotBuildableError } from '../plugins/parsed-config.js';
import type { BuiltJob, Environment, EnvironmentHooks } from './environment.js';
import type { Lifecycle } from './lifecycle.js';
import type { Service } from './service.js';
import { WriteGate } from './write-gate.js';
import { openWaitingOutOneShots } from './lock-wait.js';

export class UnknownFlowError extends Error {
  readonly code = 'config_invalid';
}

/** What every part is built from. */
export interface PartsContext {
  readonly loaded: LoadedConfig;
  readonly registry: PluginRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly hooks: EnvironmentHooks;
  /** API keys and proxy credentials, added to the secrets scrubbed from logs as the parts using them open. */
  readonly addSecrets: (values: readonly string[]) => void;
  /** Set for a daemon: how long it waits for a one-shot command's hold on the state file (see lock-wait.ts). */
  readonly lockWaitMs?: number | undefined;
}

export type EnvironmentParts = Pick<
  Environment,
  'state' | 'endpoint' | 'apis' | 'connectors' | 'jobs' | 'mappings'
>;

/** A job before it is built: its flow and its config block. */
type JobPlan = Omit<BuiltJob, 'job'>;

/** Opens every part on `lifecycle`. A state store given by the caller (a dry run's copy) stays the caller's to close. */
export async function openParts(
  lifecycle: Lifecycle,
  context: PartsContext,
  givenState?: StateStore,
): Promise<EnvironmentParts> {
  const state = givenState ?? (await openStateStore(lifecycle, context));
  const endpoint = await openEndpoint(lifecycle, context);
  const plans = enabledJobPlans(context.loaded, context.registry);
  const gate = new WriteGate(state, leadershipSettings(context.loaded.config));
  const apis = await openApiClients(lifecycle, context, { gate, endpoint, sides: sidesOf(plans) });
  const connectors = await openConnectors(lifecycle, context, gate);
  const mappings = new MappingsHolder(context.loaded.config.mappings as Mappings);
  const jobs = await openPart(
    lifecycle,
    'built jobs',
    () => buildJobs(context, plans, { state, apis, connectors, mappings }),
    () => undefined, // jobs hold nothing open: their API clients and connectors are parts of their own
  );
  return { state, endpoint, apis, connectors, jobs, mappings };
}

/** One resource as a service: opened when it starts, closed when it stops. */
class ResourceService<T> implements Service {
  #resource: T | undefined;

  constructor(
    readonly name: string,
    private readonly open: () => Promise<T> | T,
    private readonly close: (resource: T) => Promise<void> | void,
  ) {}

  get resource(): T {
    if (this.#resource === undefined) throw new Error(`${this.name}: not open`);
    return this.#resource;
  }

  async start(): Promise<void> {
    this.#resource = await this.open();
  }

  async stop(): Promise<void> {
    const resource = this.#resource;
    this.#resource = undefined;
    if (resource !== undefined) await this.close(resource);
  }
}

async function openPart<T>(
  lifecycle: Lifecycle,
  name: string,
  open: () => Promise<T> | T,
  close: (resource: T) => Promise<void> | void,
): Promise<T> {
  return (await lifecycle.start(new ResourceService(name, open, close))).resource;
}

function openStateStore(lifecycle: Lifecycle, context: PartsContext): Promise<StateStore> {
  const { config } = context.loaded;
  const { lockWaitMs } = context;
  const open = (holder: 'daemon' | 'command') => () =>
    openConfiguredState(config.state, context.clock, { ...stateSessionOptions(config), holder });
  return openPart(
    lifecycle,
    'state store',
    lockWaitMs === undefined
      ? open('command')
      : () => openWaitingOutOneShots(open('daemon'), lockWaitMs, context.logger),
    (state) => state.close(),
  );
}

async function openEndpoint(lifecycle: Lifecycle, context: PartsContext): Promise<ApiEndpoint> {
  const { config } = context.loaded;
  const endpoint = await openPart(
    lifecycle,
    'API endpoint',
    () =>
      openApiEndpoint(config, {
        statePath: embeddedSandboxFile(config),
        allowHttpWebhooks: true,
      }),
    (opened) => opened.close(),
  );
  const { network } = endpoint;
  if (network !== undefined) context.addSecrets(proxySecrets(resolveProxySettings(network), network.proxy));
  return endpoint;
}

/** The enabled jobs with their flows, in config order; an unknown flow names the file, the job and the known flows. */
function enabledJobPlans(loaded: LoadedConfig, registry: PluginRegistry): Map<string, JobPlan> {
  const plans = new Map<string, JobPlan>();
  for (const [jobName, config] of Object.entries(loaded.config.jobs)) {
    if (!config.enabled) continue;
    const flow = registry.flow(config.flow);
    if (flow === undefined) {
      const known = registry.flowNames().join(', ') || 'none';
      throw new UnknownFlowError(
        `${loaded.file}: jobs.${jobName}.flow: unknown flow "${config.flow}" (known flows: ${known})`,
      );
    }
    plans.set(jobName, { flow, config });
  }
  return plans;
}

function sidesOf(plans: ReadonlyMap<string, JobPlan>): Set<ApiSide> {
  const sides = new Set([...plans.values()].map(({ flow }) => flow.side));
  // Without jobs the daemon still watches the API (readiness, doctor), with the supplier-side key.
  if (sides.size === 0) sides.add('supplier');
  return sides;
}

interface ApiClientSources {
  readonly gate: WriteGate;
  readonly endpoint: ApiEndpoint;
  readonly sides: ReadonlySet<ApiSide>;
}

async function openApiClients(
  lifecycle: Lifecycle,
  context: PartsContext,
  { gate, endpoint, sides }: ApiClientSources,
): Promise<Map<ApiSide, ApiClient>> {
  const { clock, logger, hooks } = context;
  const { onApiCall, onDrift } = hooks;
  const apis = new Map<ApiSide, ApiClient>();
  for (const side of sides) {
    context.addSecrets([endpoint.keyFor(side)]);
    const open = (): ApiClient =>
      apiClientFor(context.loaded.config, endpoint, side, {
        clock,
        logger: logger.child({ api: side }),
        // On a shared state, a write reaches the API only while its term holds the lease with time for it.
        beforeWrite: () => gate.admit('an API write'),
        ...(onApiCall ? { onCall: (event: ApiCallEvent) => onApiCall(side, event) } : {}),
        ...(onDrift ? { onDrift } : {}),
      });
    apis.set(side, await openPart(lifecycle, `${side} API client`, open, (api) => api.close()));
  }
  return apis;
}

/**
 * Opens the configured connectors, each with its commit gate wired to the write gate: a connector's write commits
 * only while its term holds the lease. Exported for the HA tests, which build their ERP writers with it.
 */
export async function openConnectors(
  lifecycle: Lifecycle,
  context: Pick<PartsContext, 'loaded' | 'registry'>,
  gate: WriteGate,
): Promise<Map<string, Connector>> {
  const { loaded, registry } = context;
  const baseDir = dirname(resolve(loaded.file));
  const connectors = new Map<string, Connector>();
  for (const [name, block] of Object.entries(loaded.config.connectors)) {
    const { type, ...parsed } = block; // parsed by the type's schema when the config was loaded
    // The allowance goes to the connector: one that cannot roll back (an ERP's HTTP API) cuts its request there.
    const mayCommit = async (): Promise<CommitAllowance | undefined> => {
      const allowance = await gate.admit(`a write of connector ${name}`);
      return allowance === undefined ? undefined : { deadline: allowance.deadline };
    };
    const open = (): Promise<Connector> =>
      registry.createParsedConnector(type, parsed, {
        name,
        baseDir,
        configFile: resolve(loaded.file),
        mayCommit,
      });
    connectors.set(name, await openPart(lifecycle, `connector ${name}`, open, (opened) => opened.close()));
  }
  return connectors;
}

interface JobSources {
  readonly state: StateStore;
  readonly apis: ReadonlyMap<ApiSide, ApiClient>;
  readonly connectors: ReadonlyMap<string, Connector>;
  readonly mappings: MappingsHolder;
}

function buildJobs(
  context: PartsContext,
  plans: ReadonlyMap<string, JobPlan>,
  { state, apis, connectors, mappings }: JobSources,
): Map<string, BuiltJob> {
  const { loaded, logger, clock } = context;
  const { config } = loaded;
  const connector = (name: string): Connector => connectorNamed(loaded.file, connectors, name);
  const jobs = new Map<string, BuiltJob>();
  const builders = new Map<string, { flow: JobPlan['flow']; build: (view: Mappings) => Job }>();
  for (const [jobName, { flow, config: jobConfig }] of plans) {
    const api = apis.get(flow.side);
    if (api === undefined) throw new Error(`no API client for side ${flow.side}`);
    const build = (view: Mappings): Job =>
      flow.create(
        {
          name: jobName,
          ...(jobConfig.connector === undefined ? {} : { connector: jobConfig.connector }),
          // Parsed by the flow's schema when the config was loaded.
          options: jobConfig.options,
        },
        {
          api,
          connector,
          state,
          mappings: view,
          logger: logger.child({ job: jobName }),
          clock,
          workDir: dirname(config.state.path),
        },
      );
    // The job reads the mappings current at the start of each run: a config reload applies from its next run on.
    const { view, pin } = mappings.jobView();
    jobs.set(jobName, { job: pinnedPerRun(build(view), pin), flow, config: jobConfig });
    builders.set(jobName, { flow, build });
  }
  // A reload's mappings must build every job as a start with them would: a table a job names must not go missing.
  mappings.checkWith((next) => {
    const problems: MappingsProblem[] = [];
    for (const [job, { flow, build }] of builders) {
      try {
        build(next); // built and thrown away: only whether it builds counts
      } catch (error) {
        problems.push({
          job,
          flow: flow.flow,
          message: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return problems;
  });
  return jobs;
}

function connectorNamed(file: string, connectors: ReadonlyMap<string, Connector>, name: string): Connector {
  const connector = connectors.get(name);
  if (connector === undefined) {
    throw new ConfigNotBuildableError(
      `${file}: connectors: no connector named "${name}" (configured: ${[...connectors.keys()].join(', ') || 'none'})`,
    );
  }
  return connector;
}
