/** JSON Schema (draft 2020-12) of the contract, from the strict schemas: enums listed, unknown fields refused. */
import * as z from 'zod';
import { type SchemaName, strict } from './build.js';

/** The resources and shared shapes (response bodies) of parts 2, 6 and 7. */
export const RESOURCE_SCHEMA_NAMES = [
  'PartyRef',
  'BranchRef',
  'Totals',
  'ExpenseTotals',
  'TimeWindow',
  'FileRef',
  'HistoryEntry',
  'ValidationErrorItem',
  'BatchItemResult',
  'BatchResponse',
  'PageEnvelope',
  'Me',
  'TokenResponse',
  'SupplierBuyer',
  'BuyerInvitation',
  'PriceList',
  'Product',
  'PriceEntry',
  'Order',
  'OrderLine',
  'Document',
  'DocumentLine',
  'Difference',
  'Expense',
  'ExpenseLine',
  'CardTransaction',
  'Vendor',
  'CatalogProduct',
  'Branch',
  'PurchaseType',
  'ExpenseCategory',
  'ExpenseAccount',
  'AccountMapping',
  'JournalLine',
  'AccountingExportBatch',
  'ZReport',
  'ItemSale',
  'InventoryCount',
  'FoodCostReport',
  'PurchasesReport',
  'ExpensesReport',
  'PnlReport',
  'File',
  'ExportJob',
  'AuditRequestEntry',
  'WebhookEndpoint',
  'WebhookDelivery',
  'EventEnvelope',
  'OrderEventData',
  'DocumentEventData',
  'ExpenseEventData',
  'BuyerEventData',
  'InventoryCountEventData',
  'SupplierEventData',
  'PriceListAssignedEventData',
  'JournalLinesApprovedEventData',
  'CardTransactionImportedEventData',
  'ApiClientSuspendedEventData',
  'WebhookDisabledEventData',
  'PingEventData',
  'Problem',
] as const satisfies readonly SchemaName[];

/** Request bodies of parts 4 and the gap endpoints. */
export const REQUEST_SCHEMA_NAMES = [
  'TokenRequest',
  'PatchSupplierBuyerRequest',
  'CreateBuyerInvitationRequest',
  'ConfirmOrderRequest',
  'AcknowledgeOrderRequest',
  'RejectOrderRequest',
  'CreateDocumentRequest',
  'PutProductRequest',
  'ProductBatchRequest',
  'SetAvailabilityRequest',
  'PutPricesRequest',
  'AssignPriceListBuyerRequest',
  'CreateExpenseRequest',
  'CreateAccountingExportRequest',
  'ZReportBatchRequest',
  'ItemSaleBatchRequest',
  'FileUploadFields',
  'CreateExportJobRequest',
  'CreateWebhookRequest',
  'PatchWebhookRequest',
] as const satisfies readonly SchemaName[];

export type JsonSchema = Record<string, unknown>;

function exportAll(names: readonly SchemaName[]): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const name of names) out[name] = z.toJSONSchema(strict[name]) as JsonSchema;
  return out;
}

/** One JSON Schema per resource, keyed by resource name. */
export function resourceJsonSchemas(): Record<string, JsonSchema> {
  return exportAll(RESOURCE_SCHEMA_NAMES);
}

/** One JSON Schema per request body, keyed by request name. */
export function requestJsonSchemas(): Record<string, JsonSchema> {
  return exportAll(REQUEST_SCHEMA_NAMES);
}
