import type { DecimalString } from './values.js';

export interface ZReportRecord {
  readonly branchCode: string;
  readonly zNumber: string;
  readonly closedAt: string;
  readonly totalBeforeVat: DecimalString;
  readonly fields: Readonly<Record<string, string | number | null>>;
}

export interface ItemSaleRecord {
  readonly branchCode: string;
  readonly zNumber: string;
  readonly lineNumber: number | null;
  readonly valueDate: string;
  readonly itemCode: string;
  readonly itemName: string;
  readonly quantity: DecimalString;
  readonly unitPrice: DecimalString;
  readonly total: DecimalString;
  readonly fields: Readonly<Record<string, string | number | null>>;
}

/** A unit of sales input (one query result, one dropped file) processed and then marked done or failed. */
export interface SalesBatch {
  readonly ref: string;
  readonly zReports: readonly ZReportRecord[];
  readonly itemSales: readonly ItemSaleRecord[];
}
