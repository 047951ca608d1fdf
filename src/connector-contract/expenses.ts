import type { DecimalString, IsoDate, Period } from './values.js';

/** One line of an expense, in the source's own codes (the flow maps them). */
export interface SourceExpenseLine {
  readonly lineNumber: number;
  /** The source's category code. */
  readonly category: string;
  readonly amountBeforeVat: DecimalString;
  readonly vatAmount: DecimalString | null;
  readonly purchaseType: string | null;
  readonly branch: string | null;
  readonly description: string | null;
}

export interface SourceExpenseTotals {
  readonly beforeVat: DecimalString;
  readonly vat: DecimalString;
  readonly withVat: DecimalString;
}

/** An expense recorded in a back-office system (a database, a card export, a folder of receipts), not yet sent. */
export interface SourceExpense {
  /** The source's own key for the expense, handed back to markExpenseSent; stable across reads. */
  readonly ref: string;
  /** The source's vendor code. */
  readonly vendor: string;
  readonly merchantName: string | null;
  /** tax_invoice | invoice_receipt | receipt | ... (unknown values passed through). */
  readonly docType: string;
  readonly docNumber: string | null;
  readonly allocationNumber: string | null;
  readonly docDate: IsoDate;
  readonly dueDate: IsoDate | null;
  readonly accountingPeriod: Period | null;
  /** The source's branch code. */
  readonly branch: string;
  readonly purchaseType: string | null;
  /** with_vat | exempt | no_tax_doc. */
  readonly vatMode: string;
  /** Null when the source keeps no totals: the flow adds up the lines. */
  readonly totals: SourceExpenseTotals | null;
  readonly paymentMethod: string | null;
  readonly notes: string | null;
  /** Absolute paths of the files to attach (receipt scans, PDFs), in order. */
  readonly attachmentPaths: readonly string[];
  readonly lines: readonly SourceExpenseLine[];
}
