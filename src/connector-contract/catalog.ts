import type { DecimalString, IsoDate } from './values.js';

export interface ErpProduct {
  readonly sku: string;
  readonly name: string;
  readonly unit: string;
  readonly packageQuantity: DecimalString | null;
  readonly category: string | null;
  readonly barcode: string | null;
  readonly vatExempt: boolean;
  readonly externalRef: string | null;
}

export interface ErpPrice {
  /** The ERP's price list code; the flow maps it to an API price list. */
  readonly priceList: string;
  readonly sku: string;
  readonly price: DecimalString;
  readonly minQuantity: DecimalString | null;
  readonly validFrom: IsoDate | null;
}

export interface ErpAvailability {
  readonly sku: string;
  readonly available: boolean;
  readonly availableUntil: IsoDate | null;
}

export interface ErpCustomer {
  readonly customerNumber: string;
  readonly name: string;
  readonly taxId: string | null;
  readonly erpRef: string | null;
  readonly email: string | null;
  readonly priceList: string | null;
}
