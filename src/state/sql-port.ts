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

export interface SyncSqlPort {
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

/** Thrown by a fence: this instance is no longer the leader, its writes must stop. */
export class LeadershipLostError extends Error {
  readonly code = 'leadership_lost';
  constructor(message = 'this instance lost the leadership lease; it stops writing to the shared state') {
    super(message);
    this.name = 'LeadershipLostError';
  }
}
