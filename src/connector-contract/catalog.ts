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

/**
 * Whether a product read saw the whole catalog. Only a complete read may remove products downstream: a read cut
 * short (a page cap, a file still being written, a query that returned fewer rows than the ERP holds) makes every
 * product it missed look deleted.
 */
export type ReadCompleteness =
  | { readonly complete: true }
  | {
      readonly complete: false;
      /** What cut the read short and what to do about it, for the person reading the run's notification. */
      readonly reason: string;
    };

export interface ProductRead {
  readonly products: ErpProduct[];
  readonly completeness: ReadCompleteness;
}

export function completeRead(products: ErpProduct[]): ProductRead {
  return { products, completeness: { complete: true } };
}

export function partialRead(products: ErpProduct[], reason: string): ProductRead {
  return { products, completeness: { complete: false, reason } };
}
