/** What a reconciliation found, in one shape for every check: what matched, then each difference with what to do. */

export type DifferenceKind =
  | 'missing_in_books'
  | 'present_twice'
  | 'amount_differs'
  | 'account_differs'
  | 'date_differs'
  | 'not_exported_by_api'
  | 'unbalanced_in_books'
  | 'cannot_compare'
  | 'missing_in_erp'
  | 'erp_number_differs';

export interface Difference {
  readonly kind: DifferenceKind;
  /** The document (journal: its reference as the books keep it) or order number. */
  readonly document: string;
  readonly side: string;
  readonly account: string;
  readonly apiValue: string;
  readonly booksValue: string;
  /** API ids the difference is about (journal line ids, an order id). */
  readonly apiIds: readonly string[];
  /** API export batch ids of those lines. */
  readonly batchIds: readonly string[];
  /** Where in the books or the ERP (rows, files and records). */
  readonly where: readonly string[];
  readonly detail: string;
  readonly action: string;
}

export interface TotalRow {
  readonly key: string;
  readonly apiDebit: string;
  readonly apiCredit: string;
  readonly booksDebit: string;
  readonly booksCredit: string;
  readonly matches: boolean;
}

export interface ReconcileReport {
  readonly check: 'journal' | 'orders';
  readonly scope: string;
  /** The connector compared with, and what was read of it. */
  readonly target: { readonly connector: string; readonly type: string; readonly sources: readonly string[] };
  readonly counts: Readonly<Record<string, number>>;
  readonly matched: readonly string[];
  /** Journal: API and books totals per account and per document. */
  readonly totals?: { readonly accounts: readonly TotalRow[]; readonly documents: readonly TotalRow[] };
  /** What the comparison could not look at, said plainly (a field the books do not keep). */
  readonly notes: readonly string[];
  readonly differences: readonly Difference[];
}

export const DIFFERENCE_CSV_HEADER = [
  'kind',
  'document',
  'side',
  'account',
  'api_value',
  'books_value',
  'api_ids',
  'batch_ids',
  'where',
  'detail',
  'action',
] as const;

export function differenceRow(difference: Difference): string[] {
  return [
    difference.kind,
    difference.document,
    difference.side,
    difference.account,
    difference.apiValue,
    difference.booksValue,
    difference.apiIds.join(' '),
    difference.batchIds.join(' '),
    difference.where.join('; '),
    difference.detail,
    difference.action,
  ];
}
