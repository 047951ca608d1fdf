import type { Fence, LeaseGrant, SqlRunResult, SyncSqlPort, SyncStatement } from '../sql-port.js';
import { SyncWorkerChannel } from './channel.js';
import { numberPlaceholders } from './placeholders.js';
import type { WorkerSetup } from './protocol.js';

/** A statement PostgreSQL refused, or a connection that could not be made or was lost. */
export class PgStateError extends Error {
  constructor(
    message: string,
    /** The SQLSTATE (or a Node error code for network failures). */
    readonly code: string | null,
    readonly connection: boolean,
  ) {
    super(message);
    this.name = 'PgStateError';
  }
}

interface QueryResult {
  readonly rows: unknown[];
  readonly rowCount: number;
}

/** Byte columns cross the thread boundary as plain Uint8Arrays; the stores' rows carry Buffers, as on SQLite. */
function withBuffers(rows: unknown[], rowMode: 'object' | 'array'): unknown[] {
  for (const row of rows) {
    const values = row as Record<string, unknown>;
    for (const key of rowMode === 'array' ? (row as unknown[]).keys() : Object.keys(values)) {
      const value = values[key as string];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
        values[key as string] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    }
  }
  return rows;
}

class PgStatement implements SyncStatement {
  #rowMode: 'object' | 'array' = 'object';

  constructor(
    private readonly port: PgSyncPort,
    private readonly sql: string,
    private readonly name: string,
  ) {}

  run(...params: unknown[]): SqlRunResult {
    const result = this.port.write(() => this.port.query(this.sql, params, this.name, this.#rowMode));
    return { changes: result.rowCount, lastInsertRowid: 0 };
  }

  get(...params: unknown[]): unknown {
    return this.port.query(this.sql, params, this.name, this.#rowMode).rows[0];
  }

  all(...params: unknown[]): unknown[] {
    return this.port.query(this.sql, params, this.name, this.#rowMode).rows;
  }

  /** Reads every row first: the state's walks are small, and a cursor would hold the connection between calls. */
  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.all(...params)[Symbol.iterator]();
  }

  raw(toggle = true): this {
    this.#rowMode = toggle ? 'array' : 'object';
    return this;
  }
}

export interface PgPortOptions {
  readonly url: string;
  readonly connectTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  /** The session refuses writes. */
  readonly readOnly?: boolean;
  /**
   * How long the server lets a transaction sit idle before it ends it. A fenced session must use the leadership's
   * (fencedSessionSettings in src/ha): a leader frozen inside a transaction holds the lease row until then.
   */
  readonly idleInTransactionTimeoutMs?: number;
  /** How long a statement waits for a lock before the server fails it; the server's default (none) without. */
  readonly lockTimeoutMs?: number;
}

/**
 * The SyncSqlPort on PostgreSQL: one connection in a worker thread, called synchronously (channel.ts). Nested
 * transactions become savepoints, as with better-sqlite3. With a fence set, every write transaction runs the
 * fence first, and a write outside any transaction gets a transaction of its own so that it is fenced too.
 */
export class PgSyncPort implements SyncSqlPort {
  readonly #setup: WorkerSetup;
  readonly #timeoutMs: number;
  readonly #names = new Map<string, string>();
  #channel: SyncWorkerChannel | null = null;
  #depth = 0;
  #fence: Fence | null = null;
  #grant: LeaseGrant | undefined;
  #closed = false;

  constructor(options: PgPortOptions) {
    const statementTimeoutMs = options.statementTimeoutMs ?? 60_000;
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.#setup = {
      url: options.url,
      connectTimeoutMs,
      statementTimeoutMs,
      applicationName: 'supply-sync',
      readOnly: options.readOnly ?? false,
      idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs ?? null,
      lockTimeoutMs: options.lockTimeoutMs ?? null,
    };
    // A statement may wait for a connection first; beyond both, the session is given up (channel.ts).
    this.#timeoutMs = statementTimeoutMs + connectTimeoutMs + 5_000;
  }

  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  setFence(fence: Fence | null): void {
    this.#fence = fence;
  }

  /**
   * Runs the fence in an empty transaction of its own and returns what it says of the lease; nothing without a
   * fence or inside a transaction (fenced already).
   */
  checkFence(): LeaseGrant | undefined {
    if (this.#fence === null || this.#depth > 0) return undefined;
    this.#grant = undefined;
    this.#transact(() => undefined);
    return this.#grant;
  }

  prepare(sql: string): SyncStatement {
    let name = this.#names.get(sql);
    if (name === undefined) {
      name = `state_${this.#names.size + 1}`;
      this.#names.set(sql, name);
    }
    return new PgStatement(this, numberPlaceholders(sql), name);
  }

  exec(sql: string): void {
    this.query(sql, [], undefined, 'object');
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return (...args: A) => this.#transact(() => fn(...args));
  }

  /** Runs a write: as it is inside a transaction or without a fence, else in a fenced transaction of its own. */
  write<T>(work: () => T): T {
    return this.#depth > 0 || this.#fence === null ? work() : this.#transact(work);
  }

  query(sql: string, params: readonly unknown[], name: string | undefined, rowMode: 'object' | 'array'): QueryResult {
    const response = this.#openChannel().call(
      {
        kind: 'query',
        sql,
        params,
        rowMode,
        inTransaction: this.#depth > 0,
        ...(name === undefined ? {} : { name }),
      },
      this.#timeoutMs,
    );
    if (!response.ok) {
      const { message, code, connection } = response.failure;
      throw new PgStateError(message, code, connection);
    }
    return { rows: withBuffers(response.rows, rowMode), rowCount: response.rowCount };
  }

  close(): void {
    this.#closed = true;
    this.#channel?.close(5_000);
    this.#channel = null;
  }

  #openChannel(): SyncWorkerChannel {
    if (this.#closed) throw new PgStateError('the state database connection is closed', null, true);
    if (this.#channel === null || this.#channel.closed) {
      const retired = this.#channel?.retiredBecause ?? null;
      // A replaced worker has a new connection: a transaction begun on the old one cannot go on.
      if (this.#depth > 0 && this.#channel !== null) {
        throw new PgStateError('the connection to PostgreSQL was lost during a transaction', '08006', true);
      }
      // Told once, on the call that finds it: a worker that crashed is not replaced in silence.
      if (retired !== null) {
        this.#channel = null;
        throw new PgStateError(`${retired}; the next call starts a new one`, '08006', true);
      }
      this.#channel = new SyncWorkerChannel(this.#setup);
    }
    return this.#channel;
  }

  #transact<T>(work: () => T): T {
    const depth = this.#depth;
    const savepoint = `state_sp_${depth}`;
    this.exec(depth === 0 ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
    this.#depth += 1;
    try {
      if (depth === 0) this.#grant = this.#fence?.check(this) ?? undefined;
      const result = work();
      this.exec(depth === 0 ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (error) {
      try {
        this.exec(depth === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`);
      } catch {
        // The original error says what went wrong; a lost connection rolled the transaction back already.
      }
      throw error;
    } finally {
      this.#depth = depth;
    }
  }
}
