/** Reconciliation: the API against the books and the ERP, from the CLI and as scheduled job kinds. */
export { reconcileJournalFlow, reconcileOrdersFlow } from './flows.js';
