/** Connector checks: once at start, then every `health.connector_check_interval`. */
import { ConnectorHealth } from '../connector-health.js';
import type { Environment } from '../environment.js';
import { every, stopLoop, type Loop } from './every.js';
import type { Service, StopOptions } from './service.js';

export class ConnectorHealthService implements Service {
  readonly name = 'connector health';
  readonly health: ConnectorHealth;
  #loop: Loop | undefined;

  constructor(private readonly env: Environment) {
    this.health = new ConnectorHealth(env.connectors, env.clock, env.logger);
  }

  /** A second start while running does nothing. */
  async start(signal?: AbortSignal): Promise<void> {
    const { env } = this;
    if (this.#loop !== undefined) return;
    await this.health.checkAll(signal);
    this.#loop = every(
      env.clock,
      env.loaded.config.health.connector_check_interval,
      (loopSignal) => this.health.checkAll(loopSignal),
      (error) => env.logger.warn({ err: error }, 'connector checks failed'),
    );
  }

  async stop(options: StopOptions): Promise<void> {
    const loop = this.#loop;
    this.#loop = undefined;
    await stopLoop(loop, options, this.env.logger, 'connector checks');
  }
}
