import pg from 'pg';
import type { SqlDriver, SqlExecutor, SqlParams, SqlResult, SqlRow, StatementShape } from './driver.js';
import { bindValues, compileNamedParams } from './named-params.js';
import { PgDescribe } from './pg-describe.js';
import { toConnectorError } from './sql-errors.js';

const DATE_OID = 1082;
const TIMESTAMP_OID = 1114;
const TIMESTAMPTZ_OID = 1184;
const RAW_TEXT_OIDS = new Set([DATE_OID, TIMESTAMP_OID, TIMESTAMPTZ_OID]);

export interface PgDriverOptions {
  readonly url: string;
  /** Schema put first on the search_path of every connection. */
  readonly schema?: string;
  readonly poolSize?: number;
  /** Longest a statement may run (ms); a lock held by the accounting package must not block a job for ever. */
  readonly statementTimeoutMs?: number;
  /** Longest a statement waits for a lock (ms). */
  readonly lockTimeoutMs?: number;
  /** The connector's name, for errors. */
  readonly name?: string;
}

/**
 * PostgreSQL driver on a pg Pool. Numeric and bigint columns stay strings (pg's default); dates and timestamps are
 * returned as the server's text instead of JS Dates, so no time zone shifts a calendar date. The type parsers are
 * set on this pool only, never globally.
 */
export class PgDriver implements SqlDriver {
  readonly dialect = 'pg' as const;
  readonly #pool: pg.Pool;
  readonly #name: string;

  constructor(options: PgDriverOptions) {
    this.#name = options.name ?? 'pg';
    const config: pg.PoolConfig = {
      connectionString: options.url,
      max: options.poolSize ?? 4,
      connectionTimeoutMillis: 15_000,
      statement_timeout: options.statementTimeoutMs ?? 120_000,
      lock_timeout: options.lockTimeoutMs ?? 30_000,
      idle_in_transaction_session_timeout: 300_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          RAW_TEXT_OIDS.has(oid)
            ? (value: string) => value
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    };
    if (options.schema !== undefined) config.options = `-c search_path=${quoteSearchPath(options.schema)}`;
    this.#pool = new pg.Pool(config);
    // An idle client that loses its connection must not crash the process; the next query reports the failure.
    this.#pool.on('error', () => undefined);
  }

  query(sql: string, params: SqlParams = {}): Promise<SqlResult> {
    return run(this.#pool, sql, params, this.#name);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect().catch((error: unknown) => {
      throw toConnectorError('pg', this.#name, error);
    });
    let broken: unknown;
    try {
      await run(client, 'BEGIN', {}, this.#name);
      const result = await work({ query: (sql, params) => run(client, sql, params ?? {}, this.#name) });
      await run(client, 'COMMIT', {}, this.#name);
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError;
      }
      throw error;
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  async describe(sql: string): Promise<StatementShape> {
    const client = await this.#pool.connect().catch((error: unknown) => {
      throw toConnectorError('pg', this.#name, error);
    });
    try {
      const describe = client.query(new PgDescribe(compileNamedParams(sql, 'dollar').text));
      return { columns: await describe.done };
    } catch (error) {
      throw toConnectorError('pg', this.#name, error);
    } finally {
      client.release();
    }
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}

async function run(
  target: pg.Pool | pg.PoolClient,
  sql: string,
  params: SqlParams,
  name: string,
): Promise<SqlResult> {
  let result: pg.QueryResult<SqlRow>;
  try {
    const compiled = compileNamedParams(sql, 'dollar');
    result = await target.query<SqlRow>(compiled.text, bindValues(compiled.names, params));
  } catch (error) {
    throw toConnectorError('pg', name, error);
  }
  return {
    rows: result.rows,
    rowCount: result.command === 'SELECT' ? result.rows.length : (result.rowCount ?? 0),
  };
}

function quoteSearchPath(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) {
    throw new Error(
      `postgres schema name "${schema}" must be a plain identifier (letters, digits, underscore)`,
    );
  }
  return schema;
}
