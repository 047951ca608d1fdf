/**
 * The environment every other service works in: state store (opened and locked), API endpoint and clients,
 * connectors and jobs. Runs cut off by a crash are closed first; the webhook secrets kept in the state file join
 * the secrets scrubbed from logs.
 */
import type { Logger } from 'pino';
import type { LoadedConfig } from '../../config/index.js';
import type { Clock } from '../../shared/clock.js';
import { WebhookSecretStore } from '../../webhooks/index.js';
import type { PluginRegistry } from '../builtin.js';
import { buildEnvironment, type Environment, type EnvironmentHooks } from '../environment.js';
import type { Service } from './service.js';

/** Connections close within this bound, so a driver stuck on a lock cannot keep the process alive. */
const CLOSE_TIMEOUT_MS = 10_000;

export interface EnvironmentServiceOptions {
  readonly loaded: LoadedConfig;
  readonly registry: PluginRegistry;
  readonly clock?: Clock | undefined;
  readonly logger?: Logger | undefined;
  readonly hooks: EnvironmentHooks;
}

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
    const { loaded, registry, clock, logger, hooks } = this.options;
    const env = await buildEnvironment({
      loaded,
      registry,
      ...(clock === undefined ? {} : { clock }),
      ...(logger === undefined ? {} : { logger }),
      extraSecrets: () => this.#webhookSecrets?.activeSecrets() ?? [],
      hooks,
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
