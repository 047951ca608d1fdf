/**
 * Reconciliation: the API against the books and the ERP, as scheduled job kinds (`reconcile`, `reconcile-orders`)
 * and, through these comparisons, from the CLI's `reconcile`.
 */
export { reconcileJournalFlow, reconcileOrdersFlow } from './flows.js';
export { reconcileJournal, type JournalReconcileInput } from './journal/index.js';
export { compareOrders } from './orders/compare.js';
export {
  DIFFERENCE_CSV_HEADER,
  differenceRow,
  type Difference,
  type DifferenceKind,
  type ReconcileReport,
} from './report.js';
export { parseScope, ScopeError, type Scope } from './scope.js';
