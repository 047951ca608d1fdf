/**
 * The connector types and flows this build ships: one line each. A plugin added here is registered, checked by
 * `config validate` and described by `config schema` like every other.
 */
export { csvAccountingConnectorDefinition } from '../../../connectors/csv-accounting/index.js';
export { csvErpConnectorDefinition } from '../../../connectors/csv-erp/index.js';
export { csvExpensesConnectorDefinition } from '../../../connectors/csv-expenses/index.js';
export { csvSalesConnectorDefinition } from '../../../connectors/csv-sales/index.js';
export { demoErpConnectorDefinition } from '../../../connectors/sql/demo-erp/index.js';
export { hashavshevetConnectorDefinition } from '../../../connectors/hashavshevet/index.js';
export { odataConnectorDefinition } from '../../../connectors/odata/index.js';
export { sqlConnectorDefinition } from '../../../connectors/sql/index.js';
export { buyersFlow } from '../../flows/buyers/index.js';
export { catalogFlow } from '../../flows/catalog/index.js';
export { documentsFlow } from '../../flows/documents/index.js';
export { expensesFlow } from '../../flows/expenses/index.js';
export { journalExportFlow } from '../../flows/journal-export/index.js';
export { mirrorFlow } from '../../flows/mirror/index.js';
export { orderConfirmFlow } from '../../flows/order-confirm/index.js';
export { ordersFlow } from '../../flows/orders/index.js';
export { salesPushFlow } from '../../flows/sales-push/index.js';
export { reconcileJournalFlow } from '../../flows/reconcile/index.js';
export { reconcileOrdersFlow } from '../../flows/reconcile/index.js';
