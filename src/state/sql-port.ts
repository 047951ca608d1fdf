/**
 * The synchronous SQL port the state stores run on. better-sqlite3's Database satisfies it as it is (the SQLite
 * path pays nothing for the port); the PostgreSQL port (postgres/port.ts) answers the same calls by waiting for a
 * worker thread. A SQL Server backend would be a third implementation plus a dialect (dialect.ts).
 *
 * SQL is written with `?` placeholders; a port for a server that numbers its parameters rewrites them.
 */
export interface SqlRunResult {
  readonly changes: number;
  readonly lastInsertRowid: number | bigint;
}

export interface SyncStatement {
  run(...params: unknown[]): SqlRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows as arrays of column values instead of objects. */
  raw(toggle?: boolean): this;
}

/** The part of a port a fence reads through: one row of one query. */
export interface SyncRowReader {
  prepare(sql: string): Pick<SyncStatement, 'get'>;
}

export interface SyncSqlPort extends SyncRowReader {
  prepare(sql: string): SyncStatement;
  exec(sql: string): void;
  /**
   * Wraps `fn` so that each call runs in one transaction; a call made inside another transaction becomes a
   * savepoint, rolled back alone when `fn` throws.
   */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  readonly inTransaction: boolean;
}

/**
 * The leadership fence: run first inside every write transaction of a shared (PostgreSQL) state, it throws
 * LeadershipLostError when another instance took the lease since this one won it, so the transaction rolls back
 * and nothing of a deposed leader is committed.
 */
export interface Fence {
  /** Returns how long the lease has left when the fence knows it (the headroom a write may use). */
  check(tx: SyncSqlPort): LeaseGrant | void;
}

/** What a passed fence says of the lease: how long it has left by the database clock, when checked. */
export interface LeaseGrant {
  readonly remainingMs: number;
}

/**
 * Why a leader-only write was refused: no term held (`not_leader`), the term ended or another instance leads
 * (`lease_taken`), the lease ran out (`lease_expired`), the lease row is gone (`lease_missing`), the lease has too
 * little time left for the write and was not renewed in time (`lease_short`), the lease could not be read
 * (`lease_unreadable`).
 */
export type LeadershipLostCode =
  | 'not_leader'
  | 'lease_taken'
  | 'lease_expired'
  | 'lease_missing'
  | 'lease_short'
  | 'lease_unreadable';

/**
 * Thrown by a fence or a write gate: this instance does not hold the term a write needs, so its writes must stop.
 * The transaction that raised it rolls back; nothing it did is committed. Recognised by class (`instanceof`).
 */
export class LeadershipLostError extends Error {
  override readonly name = 'LeadershipLostError';
  readonly code: LeadershipLostCode;
  /** The term the writer believed it had, if any. */
  readonly epoch: number | null;

  constructor(code: LeadershipLostCode, message: string, epoch: number | null = null) {
    super(message);
    this.code = code;
    this.epoch = epoch;
  }
}
