/** What the daemon makes of `ha` and `state.url`: whether it elects a leader, and with which settings. */
import type { CoreConfig } from '../../config/index.js';
import { fencedSessionSettings, haConfigSchema, haSettings, type HaSettings } from '../../ha/index.js';

/**
 * The election settings when the state is shared (state.url), null on a SQLite file. A PostgreSQL state without an
 * `ha` block still elects, with the defaults: two instances started on one database by mistake cannot both write.
 */
export function leadershipSettings(config: Pick<CoreConfig, 'state' | 'ha'>): HaSettings | null {
  if (config.state.url === undefined) return null;
  return haSettings(config.ha ?? haConfigSchema.parse({}));
}

/** Session options of a state store whose write transactions are fenced (see fencedSessionSettings). */
export function stateSessionOptions(config: Pick<CoreConfig, 'state' | 'ha'>): {
  idleInTransactionTimeoutMs?: number;
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
} {
  const settings = leadershipSettings(config);
  if (settings === null) return {};
  const session = fencedSessionSettings(settings.leaseMs);
  return {
    idleInTransactionTimeoutMs: session.idle_in_transaction_session_timeout,
    statementTimeoutMs: session.statement_timeout,
    lockTimeoutMs: session.lock_timeout,
  };
}
