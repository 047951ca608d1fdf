/** The strict request-body schemas of the contract that the domain validates against, under short names. */
import { strict } from '../../contract/index.js';

export const PatchBuyerBody = strict.PatchSupplierBuyerRequest;
export const InvitationBody = strict.CreateBuyerInvitationRequest;
export const ConfirmBody = strict.ConfirmOrderRequest;
export const AcknowledgeBody = strict.AcknowledgeOrderRequest;
export const RejectBody = strict.RejectOrderRequest;
export const DocumentBody = strict.CreateDocumentRequest;
export const ProductBody = strict.PutProductRequest;
export const ProductBatchItem = strict.ProductBatchItem;
export const AvailabilityBody = strict.SetAvailabilityRequest;
export const PriceEntryBody = strict.PriceEntry;
export const AssignBuyerBody = strict.AssignPriceListBuyerRequest;
export const ExpenseBody = strict.CreateExpenseRequest;
export const AccountingExportBody = strict.CreateAccountingExportRequest;
export const ZReportItem = strict.ZReportInput;
export const ItemSaleItem = strict.ItemSaleInput;
