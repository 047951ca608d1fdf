/**
 * Connector checks on a schedule: the latest result per connector for readiness, metrics and the status page,
 * and one log line per change of state (warn when a connector goes down, info when it comes back).
 */
import type { Logger } from 'pino';
import type { Connector } from '../connectors/index.js';
import { errorMessage } from '../engine/index.js';
import type { ConnectorCheck } from '../ops/index.js';
import type { Clock } from '../shared/clock.js';

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

  async checkAll(): Promise<void> {
    const results: ConnectorCheck[] = [];
    for (const [name, connector] of this.connectors) {
      const result = await this.checkOne(name, connector);
      this.report(result);
      results.push(result);
    }
    this.latest = results;
  }

  private async checkOne(name: string, connector: Connector): Promise<ConnectorCheck> {
    try {
      const checks = await connector.check();
      const failed = checks.filter((check) => check.status === 'fail');
      return {
        name,
        ok: failed.length === 0,
        checkedAt: this.clock.now(),
        detail: failed.map((check) => `${check.name}: ${check.detail}`).join('; ') || 'ok',
      };
    } catch (error) {
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
