export type { SqlDialect, SqlDriver, SqlExecutor, SqlParams, SqlResult, SqlRow, SqlValue } from './driver.js';
export { compileNamedParams, type CompiledStatement, type PlaceholderStyle } from './named-params.js';
export { SqliteDriver } from './sqlite-driver.js';
// The PostgreSQL and SQL Server drivers are imported from their own modules (pg-driver.js, mssql-driver.js), so
// that loading the connector does not load their packages; openSqlDriver loads them when a config uses them.
export type { PgDriverOptions } from './pg-driver.js';
export { LazyDriver } from './lazy-driver.js';
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
export { SqlAccountingWriter } from './accounting-writer.js';
export { journalTableSchema, journalColumnFields, type JournalTableConfig } from './journal-config.js';
export { erpStatementsSchema, type ErpStatements } from './erp-config.js';
export { SqlOrderSink } from './erp-orders.js';
export { SqlDocumentSource } from './erp-documents.js';
export { SqlConfirmationSource, SqlDocumentReactionSink } from './erp-reactions.js';
export { SqlCatalogSource, SqlCustomerDirectory } from './erp-catalog.js';
export { SqlSalesSource } from './erp-sales.js';
export { SqlMirrorSink } from './mirror-sink.js';
export {
  SqlConnector,
  sqlCapabilities,
  sqlConnectorConfigSchema,
  sqlConnectorDefinition,
  type SqlConnectorConfig,
} from './sql-connector.js';
export { isRetryableSqlError, toConnectorError } from './sql-errors.js';
