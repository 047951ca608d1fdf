/**
 * The write fence: a leader-only transaction calls it first, and commits only if the lease row still names this
 * instance's term. See FENCE_SQL for why the check holds until COMMIT.
 */
import { LeadershipLostError, type LeaseGrant, type SyncRowReader } from '../state/sql-port.js';
import { FENCE_SQL } from './lease-sql.js';

/** The term a fenced write belongs to. */
export interface Term {
  readonly epoch: number;
  readonly holder: string;
}

/** Anything that runs a query asynchronously and returns rows: a pg Client or PoolClient inside BEGIN. */
export interface AsyncQueryable {
  query(sql: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * What a fence offers the writers; `check` throws LeadershipLostError when the write must not commit, and else
 * returns the time the lease has left.
 */
export interface WriteFence {
  check(port: SyncRowReader): LeaseGrant;
  checkAsync(client: AsyncQueryable): Promise<LeaseGrant>;
}

/**
 * A fence bound to whatever term is current when it is called (`currentTerm` returns null while not leading): the
 * object the state store keeps for its whole life.
 */
export class LeaderFence implements WriteFence {
  readonly #currentTerm: () => Term | null;

  constructor(currentTerm: () => Term | null) {
    this.#currentTerm = currentTerm;
  }

  check(port: SyncRowReader): LeaseGrant {
    const term = this.#termOrThrow();
    return judge(term, port.prepare(FENCE_SQL).get(term.epoch, term.holder));
  }

  async checkAsync(client: AsyncQueryable): Promise<LeaseGrant> {
    const term = this.#termOrThrow();
    const result = await client.query(FENCE_SQL, [term.epoch, term.holder]);
    return judge(term, result.rows[0]);
  }

  #termOrThrow(): Term {
    const term = this.#currentTerm();
    if (term === null) {
      throw new LeadershipLostError(
        'not_leader',
        'this instance is not the leader: leader-only write refused',
        null,
      );
    }
    return term;
  }
}

/** Server settings of a session that runs fenced transactions (pg client config names). */
export interface FencedSessionSettings {
  readonly idle_in_transaction_session_timeout: number;
  readonly statement_timeout: number;
  readonly lock_timeout: number;
}

/**
 * Server settings for every session that runs fenced transactions. A transaction that passed the fence keeps the
 * lease row key-share-locked (FOR KEY SHARE) until it ends, and no standby can take the lease before: whatever holds it open (a leader
 * frozen between statements, one long statement, a statement waiting on a lock) is ended by the server within
 * half a lease, so a takeover waits at most that long beyond the lease's expiry.
 */
export function fencedSessionSettings(leaseMs: number): FencedSessionSettings {
  const half = Math.max(500, Math.floor(leaseMs / 2));
  return {
    idle_in_transaction_session_timeout: half,
    statement_timeout: half,
    lock_timeout: Math.max(250, Math.floor(leaseMs / 4)),
  };
}

/** A fence for one fixed term: a job started in term N stays refused after a later term N + 1 of the same instance. */
export function termFence(term: Term): WriteFence {
  return new LeaderFence(() => term);
}

interface FenceRow {
  epoch: string;
  holder: string;
  valid: boolean;
  remaining_ms: number | string;
}

function isFenceRow(row: unknown): row is FenceRow {
  if (typeof row !== 'object' || row === null) return false;
  const { epoch, holder, valid } = row as Record<string, unknown>;
  return (
    (typeof epoch === 'string' || typeof epoch === 'number') &&
    typeof holder === 'string' &&
    typeof valid === 'boolean'
  );
}

function judge(term: Term, row: unknown): LeaseGrant {
  if (row === undefined || row === null) {
    throw new LeadershipLostError(
      'lease_missing',
      `leader lease row is missing: term ${term.epoch} of ${term.holder} cannot write`,
      term.epoch,
    );
  }
  if (!isFenceRow(row)) throw new Error('leader fence: unexpected row shape from the state database');
  if (row.valid) return { remainingMs: Math.max(0, Number(row.remaining_ms)) };
  if (Number(row.epoch) === term.epoch && row.holder === term.holder) {
    throw new LeadershipLostError(
      'lease_expired',
      `leadership lost: the lease of term ${term.epoch} expired before this write`,
      term.epoch,
    );
  }
  throw new LeadershipLostError(
    'lease_taken',
    `leadership lost: term ${term.epoch} of ${term.holder} ended, ${row.holder} leads in term ${row.epoch}`,
    term.epoch,
  );
}
