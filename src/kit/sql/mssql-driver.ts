import mssql from 'mssql';
import type {
  SqlDriver,
  SqlExecutor,
  SqlParams,
  SqlResult,
  SqlRow,
  SqlValue,
  StatementShape,
} from './driver.js';
import { mssqlConfig } from './mssql-url.js';
import { bindValues, compileNamedParams } from './named-params.js';
import { toConnectorError } from './sql-errors.js';

const DECIMAL_TYPES: readonly unknown[] = [mssql.Decimal, mssql.Numeric, mssql.Money, mssql.SmallMoney];
const MONEY_SCALE = 4;

/**
 * SQL Server driver on the mssql package, kept thin: statements use `@name` natively (`:name` is rewritten to it).
 * The driver returns DECIMAL/NUMERIC/MONEY as JS numbers; they are turned back into strings with the column's
 * scale, which is exact for the magnitudes of money and quantities (up to 15 significant digits). Queries that need
 * more digits should CAST to VARCHAR. DATE columns come back as "YYYY-MM-DD".
 */
export class MssqlDriver implements SqlDriver {
  readonly dialect = 'mssql' as const;
  readonly #pool: mssql.ConnectionPool;
  #connecting: Promise<mssql.ConnectionPool> | undefined;
  readonly #name: string;

  constructor(url: string, options: { readonly name?: string } = {}) {
    this.#name = options.name ?? 'mssql';
    const config = mssqlConfig(url);
    this.#pool =
      typeof config === 'string' ? new mssql.ConnectionPool(config) : new mssql.ConnectionPool(config);
    this.#pool.on('error', () => undefined);
  }

  async query(sql: string, params: SqlParams = {}): Promise<SqlResult> {
    const pool = await this.#connect();
    return run(new mssql.Request(pool), sql, params, this.#name);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const pool = await this.#connect();
    const transaction = new mssql.Transaction(pool);
    await transaction.begin().catch((error: unknown) => {
      throw toConnectorError('mssql', this.#name, error);
    });
    try {
      const result = await work({
        query: (sql, params) => run(new mssql.Request(transaction), sql, params ?? {}, this.#name),
      });
      await transaction.commit().catch((error: unknown) => {
        throw toConnectorError('mssql', this.#name, error);
      });
      return result;
    } catch (error) {
      await transaction.rollback().catch(() => undefined);
      throw error;
    }
  }

  /**
   * SQL Server analyses a statement without running it in sp_describe_undeclared_parameters (the parameters' types)
   * and sp_describe_first_result_set (its result columns). No test runs this without MSSQL_URL: there is no SQL
   * Server on the test machines and no other oracle for it.
   */
  async describe(sql: string): Promise<StatementShape> {
    const tsql = compileNamedParams(sql, 'at').text;
    const undeclared = await this.query('EXEC sp_describe_undeclared_parameters @tsql = :tsql', { tsql });
    const declarations = undeclared.rows
      .map((row) => `${String(row['name'])} ${String(row['suggested_system_type_name'])}`)
      .join(', ');
    const described =
      declarations === ''
        ? await this.query('EXEC sp_describe_first_result_set @tsql = :tsql', { tsql })
        : await this.query('EXEC sp_describe_first_result_set @tsql = :tsql, @params = :declarations', {
            tsql,
            declarations,
          });
    const columns = described.rows
      .filter((row) => row['is_hidden'] !== true && typeof row['name'] === 'string')
      .map((row) => String(row['name']));
    return { columns: columns.length === 0 ? null : columns };
  }

  async close(): Promise<void> {
    if (this.#connecting !== undefined) await this.#pool.close();
  }

  #connect(): Promise<mssql.ConnectionPool> {
    this.#connecting ??= this.#pool.connect().catch((error: unknown) => {
      this.#connecting = undefined;
      throw toConnectorError('mssql', this.#name, error);
    });
    return this.#connecting;
  }
}

async function run(request: mssql.Request, sql: string, params: SqlParams, name: string): Promise<SqlResult> {
  let result: mssql.IResult<Record<string, unknown>>;
  try {
    const compiled = compileNamedParams(sql, 'at');
    const values = bindValues(compiled.names, params);
    compiled.names.forEach((param, index) => request.input(param, toMssql(values[index] ?? null)));
    result = await request.query<Record<string, unknown>>(compiled.text);
  } catch (error) {
    throw toConnectorError('mssql', name, error);
  }
  const recordset = result.recordset as mssql.IRecordSet<Record<string, unknown>> | undefined;
  if (recordset === undefined) {
    return { rows: [], rowCount: result.rowsAffected.reduce((sum, n) => sum + n, 0) };
  }
  const rows = recordset.map((row) => normalizeRow(row, recordset.columns));
  return { rows, rowCount: rows.length };
}

function normalizeRow(row: Record<string, unknown>, columns: mssql.IColumnMetadata): SqlRow {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    const column = columns[name];
    if (column !== undefined && typeof value === 'number' && DECIMAL_TYPES.includes(column.type)) {
      const scale =
        column.type === mssql.Money || column.type === mssql.SmallMoney ? MONEY_SCALE : column.scale;
      out[name] = value.toFixed(scale ?? 0);
    } else if (column !== undefined && value instanceof Date && column.type === mssql.Date) {
      out[name] = value.toISOString().slice(0, 10);
    } else if (value instanceof Date) {
      out[name] = value.toISOString();
    } else {
      out[name] = value;
    }
  }
  return out;
}

function toMssql(value: SqlValue): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (typeof value === 'bigint') return value.toString();
  return value;
}
