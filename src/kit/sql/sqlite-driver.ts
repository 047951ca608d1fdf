import Database from 'better-sqlite3';
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

/** better-sqlite3 driver: one connection in WAL mode; statements are compiled once and cached. */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  readonly #db: Database.Database;
  readonly #lock = new Mutex();
  readonly #compiled = new Map<string, { compiled: CompiledStatement; statement: Database.Statement }>();
  readonly #direct: SqlExecutor = { query: (sql, params) => Promise.resolve(this.#run(sql, params ?? {})) };

  readonly #name: string;

  constructor(file: string, options: { readonly busyTimeoutMs?: number; readonly name?: string } = {}) {
    this.#name = options.name ?? 'sqlite';
    this.#db = new Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('foreign_keys = ON');
  }

  query(sql: string, params: SqlParams = {}): Promise<SqlResult> {
    return this.#lock.run(async () => this.#run(sql, params));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#lock.run(async () => {
      try {
        this.#db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw toConnectorError('sqlite', this.#name, error);
      }
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
      this.#db.exec(script);
    });
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

function toSqlite(value: SqlValue): SqliteValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value);
  return value;
}
