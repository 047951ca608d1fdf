/** Request body types, taken from the contract's schemas (as inputs, so defaulted fields stay optional). */
import type * as z from 'zod';
import type { ContractSchemas, SchemaName } from '../contract/index.js';

export type RequestBody<N extends SchemaName> = z.input<ContractSchemas[N]>;

export type PatchSupplierBuyerBody = RequestBody<'PatchSupplierBuyerRequest'>;
export type BuyerInvitationBody = RequestBody<'CreateBuyerInvitationRequest'>;
export type ConfirmOrderBody = RequestBody<'ConfirmOrderRequest'>;
export type AcknowledgeOrderBody = RequestBody<'AcknowledgeOrderRequest'>;
export type RejectOrderBody = RequestBody<'RejectOrderRequest'>;
export type CreateDocumentBody = RequestBody<'CreateDocumentRequest'>;
export type ProductBody = RequestBody<'PutProductRequest'>;
export type ProductBatchItemBody = RequestBody<'ProductBatchItem'>;
export type AvailabilityBody = RequestBody<'SetAvailabilityRequest'>;
export type PriceEntryBody = RequestBody<'PriceEntry'>;
export type AssignPriceListBuyerBody = RequestBody<'AssignPriceListBuyerRequest'>;
export type CreateExpenseBody = RequestBody<'CreateExpenseRequest'>;
export type CreateAccountingExportBody = RequestBody<'CreateAccountingExportRequest'>;
export type ZReportInputBody = RequestBody<'ZReportInput'>;
export type ItemSaleInputBody = RequestBody<'ItemSaleInput'>;
export type CreateExportJobBody = RequestBody<'CreateExportJobRequest'>;
export type CreateWebhookBody = RequestBody<'CreateWebhookRequest'>;
export type PatchWebhookBody = RequestBody<'PatchWebhookRequest'>;
