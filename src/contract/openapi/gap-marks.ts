/**
 * Which component schemas are shapes chosen where the contract says "not shown", by gap id of
 * docs/contract-gaps.md (the choices themselves live in ../gaps.ts). The document marks each with
 * `x-contract-gap`; operations carry their own marks next to their definition.
 */
export const SCHEMA_GAPS: Readonly<Record<string, string>> = {
  ConfirmOrderRequest: 'G1',
  AcknowledgeOrderRequest: 'G2',
  RejectOrderRequest: 'G3',
  CreateDocumentRequest: 'G7',
  CreateExpenseRequest: 'G13',
  InventoryCount: 'G18',
  InventoryCountPage: 'G18',
  FoodCostReport: 'G17',
  PurchasesReport: 'G17',
  ExpensesReport: 'G17',
  PnlReport: 'G17',
  EventEnvelopePage: 'G20',
  DocumentEventData: 'G30',
  ExpenseEventData: 'G30',
  BuyerEventData: 'G30',
  InventoryCountEventData: 'G30',
  SupplierEventData: 'G30',
  PriceListAssignedEventData: 'G30',
  JournalLinesApprovedEventData: 'G30',
  CardTransactionImportedEventData: 'G30',
  ApiClientSuspendedEventData: 'G30',
  WebhookDisabledEventData: 'G30',
  PingEventData: 'G30',
};
