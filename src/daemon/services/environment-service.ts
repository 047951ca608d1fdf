/**
 * Everything a job needs, built from a loaded config: state store, logger, API clients per side, connectors, and
 * the jobs themselves. Shared by `run` (the daemon, whose first service it is), `sync` (one job once) and `demo`.
 * Its parts (environment-parts.ts) are services of one lifecycle: opened in order and closed in reverse, also when
 * opening fails part way.
 */
import type { Logger } from 'pino';
import { redactionPaths, secretValues, type LoadedConfig } from '../../config/index.js';
import { createLogger, wantsPretty } from '../../log/index.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import type { StateStore } from '../../state/index.js';
import { WebhookSecretStore } from '../../webhooks/index.js';
import type { PluginRegistry } from '../plugins/builtin.js';
import { requireParsedBy } from '../plugins/parsed-config.js';
import { openParts } from './environment-parts.js';
import { Lifecycle, startServices, type LifecycleObserver } from './lifecycle.js';
import type { Service } from './service.js';
import type { Environment, EnvironmentHooks } from './environment.js';

export { UnknownFlowError } from './environment-parts.js';

export interface EnvironmentOptions {
  loaded: LoadedConfig;
  registry: PluginRegistry;
  clock?: Clock | undefined;
  /** The background loops' clock (Environment.loopClock); the clock by default. */
  loopClock?: Clock | undefined;
  logger?: Logger | undefined;
  hooks?: EnvironmentHooks | undefined;
  /** Set for a daemon: how long it waits for a one-shot command's hold on the state file. */
  lockWaitMs?: number | undefined;
  /** Extra secrets to scrub (e.g. webhook secrets kept in the state file). */
  extraSecrets?: (() => readonly string[]) | undefined;
  /** The state store to use instead of the configured file (a dry run's private copy); closed by the caller. */
  state?: StateStore | undefined;
  /** Told of each part's start and stop (the daemon's observer). */
  observer?: LifecycleObserver | undefined;
}

/** The parts hold no running work: their close has nothing to wait for. */
const CLOSE_PARTS = { timeoutMs: 0 };

/** Opens the parts in order; when one fails, those already opened are closed in reverse and its error is thrown. */
export async function buildEnvironment(options: EnvironmentOptions): Promise<Environment> {
  const { loaded, registry } = options;
  requireParsedBy(loaded, registry);
  const clock = options.clock ?? systemClock;
  const found: string[] = [];
  const configSecrets = secretValues(loaded.config, registry);
  const secrets = (): readonly string[] => [...configSecrets, ...found, ...(options.extraSecrets?.() ?? [])];
  const logger = options.logger ?? configuredLogger(loaded, registry, secrets);
  const lifecycle = new Lifecycle(() => logger, options.observer);
  const context = {
    loaded,
    registry,
    clock,
    logger,
    hooks: options.hooks ?? {},
    lockWaitMs: options.lockWaitMs,
    addSecrets: (values: readonly string[]) => found.push(...values),
  };
  const parts = await startServices(lifecycle, CLOSE_PARTS, () =>
    openParts(lifecycle, context, options.state),
  );
  const loopClock = options.loopClock ?? clock;
  return { loaded, logger, clock, loopClock, ...parts, secrets, close: () => closeParts(lifecycle) };
}

/** The logger a config asks for (level, form, time zone), scrubbing `secrets`; an office builds one for all. */
export function configuredLogger(
  loaded: LoadedConfig,
  registry: PluginRegistry,
  secrets: () => readonly string[],
): Logger {
  const { config } = loaded;
  return createLogger({
    level: config.log.level,
    name: 'supply-sync',
    pretty: wantsPretty(config.log.pretty, process.stdout.isTTY),
    timeZone: config.timezone,
    redactPaths: redactionPaths({ registry, prefix: 'config' }),
    knownSecrets: secrets,
  });
}

/** Stops every part; the close itself never fails: the lifecycle logged each part that did, by name. */
function closeParts(lifecycle: Lifecycle): Promise<void> {
  return lifecycle.stop(CLOSE_PARTS).catch(() => undefined);
}

/** Connections close within this bound, so a driver stuck on a lock cannot keep the process alive. */
const CLOSE_TIMEOUT_MS = 10_000;

export type EnvironmentServiceOptions = Pick<
  EnvironmentOptions,
  | 'loaded'
  | 'registry'
  | 'clock'
  | 'loopClock'
  | 'logger'
  | 'hooks'
  | 'observer'
  | 'extraSecrets'
  | 'lockWaitMs'
>;

/**
 * The environment as the daemon's first service: every other service works in it. Runs cut off by a crash are
 * closed first; the webhook secrets kept in the state file join the secrets scrubbed from logs.
 */
export class EnvironmentService implements Service {
  readonly name = 'environment';
  #env: Environment | undefined;
  #webhookSecrets: WebhookSecretStore | undefined;
  #startedAt = 0;

  constructor(private readonly options: EnvironmentServiceOptions) {}

  get env(): Environment {
    if (this.#env === undefined) throw new Error('the environment is not open');
    return this.#env;
  }

  /** Webhook secrets the daemon registered itself (embedded sandbox), kept in the state file. */
  get webhookSecrets(): WebhookSecretStore {
    if (this.#webhookSecrets === undefined) throw new Error('the environment is not open');
    return this.#webhookSecrets;
  }

  /** When the daemon started watching, by its clock. */
  get startedAt(): number {
    return this.#startedAt;
  }

  async start(): Promise<void> {
    // The daemon's stop signal is not handed to the parts: a stop asked for while they open is seen once they are
    // open, and then this service's stop closes them within CLOSE_TIMEOUT_MS, which a close inside the opening would
    // not be held to.
    const env = await buildEnvironment({
      ...this.options,
      extraSecrets: () => [
        ...(this.#webhookSecrets?.activeSecrets() ?? []),
        ...(this.options.extraSecrets?.() ?? []),
      ],
    });
    try {
      // Runs cut off by a crash or kill have no end; record them as such before anything new starts. On a shared
      // state the runs without an end may be the leader's, running now: a new leader closes them when elected.
      if (env.state.backend !== 'postgres') env.state.runs.closeInterrupted();
      this.#webhookSecrets = new WebhookSecretStore(env.state.kv, () => env.clock.now());
    } catch (error) {
      await env.close();
      throw error;
    }
    this.#startedAt = env.clock.now();
    this.#env = env;
  }

  async stop(): Promise<void> {
    const env = this.#env;
    if (env === undefined) return;
    const closed = await withinTime(env.close(), CLOSE_TIMEOUT_MS);
    if (!closed) env.logger.warn({ timeoutMs: CLOSE_TIMEOUT_MS }, 'connections did not close in time');
  }

  /** The logger to report with: the environment's once open, else the one given. */
  logger(): Logger | undefined {
    return this.#env?.logger ?? this.options.logger;
  }
}

/** Resolves true when `work` settles within `ms`, false otherwise (the work is left to finish on its own). */
function withinTime(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(settled, settled);
  });
}
