import type { DecimalString, IsoDate } from './values.js';

export interface ErpOrderLine {
  readonly lineNumber: number;
  readonly apiLineId: string;
  readonly itemCode: string;
  readonly description: string;
  readonly quantity: DecimalString;
  readonly unit: string | null;
  readonly unitPrice: DecimalString;
  readonly discountPct: DecimalString | null;
  readonly total: DecimalString;
  readonly vatExempt: boolean;
  readonly notes: string | null;
}

/** A sales order as the ERP stores it, already mapped from API values to ERP values. */
export interface ErpOrder {
  readonly apiOrderId: string;
  /** The buyer's human-readable order number. */
  readonly orderNumber: string;
  readonly customerNumber: string;
  readonly shipTo: string | null;
  readonly purchaseType: string | null;
  /** The day the buyer sent the order. */
  readonly orderDate: IsoDate;
  readonly deliveryDate: IsoDate;
  readonly windowFrom: string | null;
  readonly windowTo: string | null;
  readonly currency: string;
  readonly totalBeforeVat: DecimalString;
  readonly vat: DecimalString;
  readonly totalWithVat: DecimalString;
  readonly notes: string | null;
  readonly lines: readonly ErpOrderLine[];
}

export interface OrderWriteResult {
  readonly erpOrderNumber: string;
  readonly status: 'written' | 'already_written';
}

export interface OrderUpdateResult {
  readonly status: 'updated' | 'not_found';
  readonly erpOrderNumber: string | null;
}

export interface OrderCancelResult {
  readonly status: 'cancelled' | 'not_found';
}

export interface ErpOrderRef {
  readonly apiOrderId: string;
  readonly erpOrderNumber: string;
  readonly status: string | null;
}
