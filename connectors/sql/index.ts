/**
 * The sql connector: ERP statements, a journal table and mirror tables over one database (SQLite, PostgreSQL or SQL
 * Server, through the drivers in src/kit/sql). README.md documents the statements from the user's side. The demo ERP
 * (demo-erp/) is this connector over a bundled SQLite database.
 */
export { SqlAccountingWriter } from './accounting-writer.js';
export { journalTableSchema, journalColumnFields, type JournalTableConfig } from './journal-config.js';
export { erpStatementsSchema, type ErpStatements } from './erp-config.js';
export { SqlOrderSink } from './erp-orders.js';
export { SqlDocumentSource } from './erp-documents.js';
export { SqlExpenseSource, expenseContracts } from './erp-expenses.js';
export { SqlConfirmationSource, SqlDocumentReactionSink } from './erp-reactions.js';
export { SqlCatalogSource, SqlCustomerDirectory } from './erp-catalog.js';
export { SqlSalesSource } from './erp-sales.js';
export { SqlMirrorSink } from './mirror-sink.js';
export { SqlConnector, sqlCapabilities } from './connector.js';
export {
  sqlConnectorConfigSchema,
  sqlConnectorDefinition,
  type SqlConnectorConfig,
} from './sql-connector.js';
