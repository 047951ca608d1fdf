/**
 * Generic database access for connectors: drivers for SQLite, PostgreSQL and SQL Server behind one interface, named
 * parameters, dialects, the connection config block and the sorting of database errors. Nothing here knows an ERP
 * statement, a journal table or a connector; the sql connector (connectors/sql) is built on it.
 */
export type { SqlDialect, SqlDriver, SqlExecutor, SqlParams, SqlResult, SqlRow, SqlValue } from './driver.js';
export { compileNamedParams, type CompiledStatement, type PlaceholderStyle } from './named-params.js';
export { SqliteDriver } from './sqlite-driver.js';
// The PostgreSQL and SQL Server drivers are imported from their own modules (pg-driver.js, mssql-driver.js), so
// that loading a connector does not load their packages; openSqlDriver loads them when a config uses them.
export type { PgDriverOptions } from './pg-driver.js';
export { LazyDriver } from './lazy-driver.js';
export { commitGated } from './commit-gated.js';
export {
  openSqlDriver,
  describeConnection,
  sqlConnectionSchema,
  type SqlConnectionConfig,
} from './connection.js';
export {
  createTableIfMissing,
  quoteIdentifier,
  upsertStatement,
  type ColumnSpec,
  type ColumnType,
} from './dialect.js';
export { isRetryableSqlError, toConnectorError } from './sql-errors.js';
