/**
 * Connector checks on a schedule, once at start and then every `health.connector_check_interval`: the latest result
 * per connector for readiness, metrics and the status page, and one log line per change of state (warn when a
 * connector goes down, info when it comes back).
 */
import type { Logger } from 'pino';
import type { Connector } from '../../connector-contract/index.js';
import { errorMessage } from '../../engine/index.js';
import type { ConnectorCheck } from '../../ops/index.js';
import { untilAborted } from '../../shared/abortable.js';
import type { Clock } from '../../shared/clock.js';
import type { Environment } from './environment.js';
import { every, stopLoop, type Loop } from './every.js';
import type { Service, StopOptions } from './service.js';

export class ConnectorHealth {
  private latest: ConnectorCheck[] = [];
  /** The state each connector was last logged in; absent until its first check. */
  private readonly known = new Map<string, boolean>();

  constructor(
    private readonly connectors: ReadonlyMap<string, Connector>,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  results(): readonly ConnectorCheck[] {
    return this.latest;
  }

  /** Checks each connector in turn; once `signal` aborts, a check under way is given up and nothing is recorded. */
  async checkAll(signal?: AbortSignal): Promise<void> {
    const results: ConnectorCheck[] = [];
    for (const [name, connector] of this.connectors) {
      signal?.throwIfAborted();
      const result = await this.checkOne(name, connector, signal);
      this.report(result);
      results.push(result);
    }
    this.latest = results;
  }

  private async checkOne(name: string, connector: Connector, signal?: AbortSignal): Promise<ConnectorCheck> {
    try {
      // The connector contract's check() takes no signal: a check given up goes on unobserved until it ends.
      const checks = await untilAborted(connector.check(), signal);
      const failed = checks.filter((check) => check.status === 'fail');
      return {
        name,
        ok: failed.length === 0,
        checkedAt: this.clock.now(),
        detail: failed.map((check) => `${check.name}: ${check.detail}`).join('; ') || 'ok',
      };
    } catch (error) {
      if (signal?.aborted === true) throw error; // given up: says nothing about the connector
      return { name, ok: false, checkedAt: this.clock.now(), detail: errorMessage(error) };
    }
  }

  /** Logs a change of state once: the first check logs only a connector that is down. */
  private report(result: ConnectorCheck): void {
    const before = this.known.get(result.name);
    this.known.set(result.name, result.ok);
    if (before === result.ok || (before === undefined && result.ok)) return;
    const fields = { connector: result.name, reason: result.detail };
    if (result.ok) this.logger.info(fields, 'connector is up again');
    else this.logger.warn(fields, 'connector is down');
  }
}

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
      env.loopClock,
    );
  }

  async stop(options: StopOptions): Promise<void> {
    const loop = this.#loop;
    this.#loop = undefined;
    await stopLoop(loop, options, this.env.logger, 'connector checks');
  }
}
