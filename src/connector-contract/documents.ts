import type { DecimalString, IsoDate } from './values.js';

export interface ErpDocumentLine {
  readonly lineNumber: number;
  readonly itemCode: string;
  readonly description: string;
  readonly quantity: DecimalString;
  readonly unit: string | null;
  readonly unitPrice: DecimalString;
  readonly discountPct: DecimalString | null;
  readonly total: DecimalString;
  readonly vatExempt: boolean;
  readonly apiOrderId: string | null;
  readonly apiOrderLineId: string | null;
}

/** A delivery note, invoice, credit note or consolidated invoice issued by the ERP and not yet sent. */
export interface ErpDocument {
  /** The ERP's own key for the document, handed back to markDocumentSent. */
  readonly ref: string;
  /** delivery_note | invoice | credit_note | consolidated_invoice (unknown values passed through). */
  readonly type: string;
  readonly number: string;
  readonly date: IsoDate;
  readonly dueDate: IsoDate | null;
  readonly customerNumber: string;
  readonly shipTo: string | null;
  readonly purchaseType: string | null;
  readonly allocationNumber: string | null;
  readonly currency: string;
  readonly totalBeforeVat: DecimalString;
  readonly vat: DecimalString;
  readonly totalWithVat: DecimalString;
  readonly discount: DecimalString | null;
  /** Absolute path of the PDF to upload, or null when the document has none. */
  readonly attachmentPath: string | null;
  /** API order ids the document relates to (header and lines, deduplicated). */
  readonly apiOrderIds: readonly string[];
  readonly lines: readonly ErpDocumentLine[];
}

export interface DocumentDifference {
  readonly lineRef: string | null;
  readonly itemCode: string | null;
  readonly field: string;
  readonly issued: string | null;
  readonly received: string | null;
  readonly note: string | null;
}

/** A buyer's reaction to a document (received with differences, disputed, approved for export, ...). */
export interface DocumentReaction {
  readonly apiDocumentId: string;
  readonly documentType: string;
  readonly documentNumber: string;
  readonly buyerStatus: string;
  readonly occurredAt: string;
  readonly differences: readonly DocumentDifference[];
}

export interface ConfirmationLine {
  readonly apiLineId: string | null;
  readonly itemCode: string;
  readonly quantityConfirmed: DecimalString;
  readonly substituteItemCode: string | null;
  readonly notes: string | null;
}

/** An order confirmation or rejection decided in the ERP. */
export interface ErpConfirmation {
  readonly ref: string;
  readonly apiOrderId: string;
  readonly erpOrderNumber: string | null;
  readonly kind: 'full' | 'partial' | 'reject';
  readonly reason: string | null;
  readonly lines: readonly ConfirmationLine[];
}
