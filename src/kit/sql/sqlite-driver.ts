import Database from 'better-sqlite3';
import pRetry from 'p-retry';
import type {
  SqlDriver,
  SqlExecutor,
  SqlParams,
  SqlResult,
  SqlRow,
  SqlValue,
  StatementShape,
} from './driver.js';
import { Mutex } from './mutex.js';
import { bindValues, compileNamedParams, type CompiledStatement } from './named-params.js';
import { toConnectorError } from './sql-errors.js';

type SqliteValue = string | number | bigint | Buffer | null;

/**
 * How long a statement waits for another connection's write lock by default. 5 s was once not enough for the demo's
 * ERP users on a busy 2-core machine: their transaction, which writes a PDF, held the lock that long, and a job failed
 * with "database is locked". These waits happen between attempts without blocking (see the class), so a longer one
 * costs nothing while the file is free. Opening the file waits on SQLite's own busy timeout, which does block the
 * process: for OPEN_BUSY_TIMEOUT_MS at most, as before.
 */
const DEFAULT_BUSY_TIMEOUT_MS = 15_000;
const OPEN_BUSY_TIMEOUT_MS = 5_000;

/**
 * better-sqlite3 driver: one connection in WAL mode; statements are compiled once and cached.
 *
 * better-sqlite3 runs on the event loop: with SQLite's own busy timeout, a statement waiting for another
 * connection's write lock blocks the whole process, and when that connection belongs to the same process (the demo's
 * ERP users beside the connector, or any second driver on the file) it cannot commit meanwhile, so the wait always
 * ends in "database is locked". Waits for the write lock therefore happen here, between attempts, without blocking.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  readonly #db: Database.Database;
  readonly #lock = new Mutex();
  readonly #compiled = new Map<string, { compiled: CompiledStatement; statement: Database.Statement }>();
  readonly #direct: SqlExecutor = { query: (sql, params) => Promise.resolve(this.#run(sql, params ?? {})) };

  readonly #name: string;
  /** How long a statement waits for another connection's write lock before it fails (SQLITE_BUSY). */
  readonly #busyTimeoutMs: number;

  constructor(file: string, options: { readonly busyTimeoutMs?: number; readonly name?: string } = {}) {
    this.#name = options.name ?? 'sqlite';
    this.#busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    this.#db = new Database(file, { timeout: Math.min(this.#busyTimeoutMs, OPEN_BUSY_TIMEOUT_MS) });
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('foreign_keys = ON');
    // From here on a busy file fails at once, and #whenFree waits without holding the event loop.
    this.#db.pragma('busy_timeout = 0');
  }

  query(sql: string, params: SqlParams = {}): Promise<SqlResult> {
    // Outside a transaction a statement that met a busy file did nothing: trying it again is safe.
    return this.#lock.run(() => this.#whenFree(() => this.#execute(sql, params)));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#lock.run(async () => {
      await this.#whenFree(() => this.#db.exec('BEGIN IMMEDIATE'));
      try {
        const result = await work(this.#direct);
        this.#run('COMMIT', {});
        return result;
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  /** SQLite compiles the statement against the schema in prepare(); nothing runs. */
  describe(sql: string): Promise<StatementShape> {
    return this.#lock.run(async () => {
      try {
        const statement = this.#db.prepare(compileNamedParams(sql, 'question').text);
        return { columns: statement.reader ? statement.columns().map((column) => column.name) : null };
      } catch (error) {
        throw toConnectorError('sqlite', this.#name, error);
      }
    });
  }

  close(): Promise<void> {
    return this.#lock.run(async () => {
      this.#db.close();
    });
  }

  /** Runs a script of several statements without parameters (schema creation). */
  exec(script: string): Promise<void> {
    return this.#lock.run(async () => {
      await this.#whenFree(
        () => this.#db.exec(script),
        (error) => error,
      );
    });
  }

  /**
   * Runs `attempt`, trying again while another connection holds the write lock, for up to the busy timeout; the
   * waits are timers, so that connection (in this process too) can finish meanwhile.
   */
  async #whenFree<T>(
    attempt: () => T,
    wrap: (error: unknown) => unknown = (error) => toConnectorError('sqlite', this.#name, error),
  ): Promise<T> {
    try {
      return await pRetry(attempt, {
        retries: Number.POSITIVE_INFINITY,
        maxRetryTime: this.#busyTimeoutMs,
        minTimeout: 2,
        maxTimeout: 50,
        shouldRetry: ({ error }) => isBusy(error),
      });
    } catch (error) {
      throw wrap(error);
    }
  }

  #run(sql: string, params: SqlParams): SqlResult {
    try {
      return this.#execute(sql, params);
    } catch (error) {
      throw toConnectorError('sqlite', this.#name, error);
    }
  }

  #execute(sql: string, params: SqlParams): SqlResult {
    const { compiled, statement } = this.#prepare(sql);
    const values = bindValues(compiled.positions, params).map(toSqlite);
    if (statement.reader) {
      const rows = statement.all(...values) as SqlRow[];
      return { rows, rowCount: rows.length };
    }
    const info = statement.run(...values);
    return { rows: [], rowCount: info.changes };
  }

  #prepare(sql: string): { compiled: CompiledStatement; statement: Database.Statement } {
    let entry = this.#compiled.get(sql);
    if (entry === undefined) {
      const compiled = compileNamedParams(sql, 'question');
      entry = { compiled, statement: this.#db.prepare(compiled.text) };
      this.#compiled.set(sql, entry);
    }
    return entry;
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_BUSY_TIMEOUT';
}

function toSqlite(value: SqlValue): SqliteValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value);
  return value;
}
