import type { SqlDialect, SqlDriver, SqlExecutor, SqlParams, SqlResult, StatementShape } from './driver.js';

/**
 * A driver whose database package is loaded on first use. The mssql package alone takes about half a second to
 * import, and every CLI command (status, doctor, each daemon start) would pay for it even when no connector in the
 * config talks to SQL Server.
 */
export class LazyDriver implements SqlDriver {
  #driver: Promise<SqlDriver> | undefined;

  constructor(
    readonly dialect: SqlDialect,
    private readonly load: () => Promise<SqlDriver>,
  ) {}

  async query(sql: string, params?: SqlParams): Promise<SqlResult> {
    return (await this.#open()).query(sql, params);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return (await this.#open()).transaction(work);
  }

  async describe(sql: string): Promise<StatementShape> {
    return (await this.#open()).describe(sql);
  }

  async close(): Promise<void> {
    if (this.#driver === undefined) return;
    await (await this.#driver).close();
  }

  #open(): Promise<SqlDriver> {
    this.#driver ??= this.load();
    return this.#driver;
  }
}
