/**
 * One dropped expenses file -> expenses. One row per expense line; rows with the same reference are one expense,
 * and the expense's own columns must agree across its rows. Column names are matched case-insensitively.
 *
 * Expense columns: <reference>, vendor, doc_type, doc_date, branch [, doc_number, allocation_number, due_date,
 *   accounting_period, purchase_type, vat_mode, merchant_name, payment_method, notes, <attachment>]
 * Line columns:    category, amount_before_vat [, vat_amount, line_purchase_type, line_branch, description]
 */
import type { SourceExpense, SourceExpenseLine } from '../../src/connector-contract/index.js';
import { csvRecords } from '../../src/kit/csv.js';

const REQUIRED = ['vendor', 'doc_type', 'doc_date', 'branch', 'category', 'amount_before_vat'] as const;
const HEADER_OPTIONAL = [
  'doc_number',
  'allocation_number',
  'due_date',
  'accounting_period',
  'purchase_type',
  'vat_mode',
  'merchant_name',
  'payment_method',
  'notes',
] as const;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_PROBLEMS = 10;

export class ExpenseFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpenseFileError';
  }
}

export interface ExpenseColumns {
  reference: string;
  attachment: string;
}

/** An expense read from a file: the attachment is the file name the row gives, resolved by the source. */
export interface ParsedExpense {
  expense: Omit<SourceExpense, 'attachmentPaths'>;
  attachment: string | null;
}

type Row = Record<string, string>;

const cell = (row: Row, name: string): string => (row[name] ?? '').trim();
const orNull = (value: string): string | null => (value === '' ? null : value);

function rowProblems(row: Row, line: number, columns: ExpenseColumns): string[] {
  const problems: string[] = [];
  for (const name of [columns.reference, ...REQUIRED]) {
    if (cell(row, name) === '') problems.push(`line ${line}: ${name} is empty`);
  }
  for (const name of ['amount_before_vat', 'vat_amount']) {
    const value = cell(row, name);
    if (value !== '' && !DECIMAL.test(value))
      problems.push(`line ${line}: ${name} "${value}" is not a number`);
  }
  for (const name of ['doc_date', 'due_date']) {
    const value = cell(row, name);
    if (value !== '' && !DATE.test(value))
      problems.push(`line ${line}: ${name} "${value}" is not a date (YYYY-MM-DD)`);
  }
  const attachment = cell(row, columns.attachment);
  if (/[\\/]/.test(attachment) || attachment === '.' || attachment === '..') {
    problems.push(
      `line ${line}: ${columns.attachment} "${attachment}" must be a file name in the drop folder`,
    );
  }
  return problems;
}

/** The expense's own fields, as one row gives them (compared across the rows of the expense). */
function headerOf(row: Row, columns: ExpenseColumns): Record<string, string> {
  const header: Record<string, string> = { attachment: cell(row, columns.attachment) };
  for (const name of [...REQUIRED.slice(0, 4), ...HEADER_OPTIONAL]) header[name] = cell(row, name);
  return header;
}

function lineOf(row: Row, lineNumber: number): SourceExpenseLine {
  return {
    lineNumber,
    category: cell(row, 'category'),
    amountBeforeVat: cell(row, 'amount_before_vat'),
    vatAmount: orNull(cell(row, 'vat_amount')),
    purchaseType: orNull(cell(row, 'line_purchase_type')),
    branch: orNull(cell(row, 'line_branch')),
    description: orNull(cell(row, 'description')),
  };
}

function expenseOf(ref: string, header: Record<string, string>, lines: SourceExpenseLine[]): ParsedExpense {
  const field = (name: string): string | null => orNull(header[name] ?? '');
  return {
    expense: {
      ref,
      vendor: header['vendor'] ?? '',
      merchantName: field('merchant_name'),
      docType: header['doc_type'] ?? '',
      docNumber: field('doc_number'),
      allocationNumber: field('allocation_number'),
      docDate: header['doc_date'] ?? '',
      dueDate: field('due_date'),
      accountingPeriod: field('accounting_period'),
      branch: header['branch'] ?? '',
      purchaseType: field('purchase_type'),
      vatMode: field('vat_mode') ?? 'with_vat',
      totals: null,
      paymentMethod: field('payment_method'),
      notes: field('notes'),
      lines,
    },
    attachment: field('attachment'),
  };
}

function fail(problems: readonly string[]): never {
  const more = problems.length > MAX_PROBLEMS ? ` (and ${problems.length - MAX_PROBLEMS} more)` : '';
  throw new ExpenseFileError(`${problems.slice(0, MAX_PROBLEMS).join('; ')}${more}`);
}

/** Parses a file's text; throws ExpenseFileError naming the lines at fault. */
export function parseExpenseFile(text: string, separator: string, columns: ExpenseColumns): ParsedExpense[] {
  const rows = csvRecords(text, separator);
  const present = new Set(Object.keys(rows[0] ?? {}));
  const missing = [columns.reference, ...REQUIRED].filter((name) => !present.has(name));
  if (rows.length > 0 && missing.length > 0) fail([`the header has no column(s) ${missing.join(', ')}`]);
  const problems: string[] = [];
  const groups = new Map<
    string,
    { header: Record<string, string>; lines: SourceExpenseLine[]; first: number }
  >();
  rows.forEach((row, index) => {
    const line = index + 2; // the header is line 1
    const found = rowProblems(row, line, columns);
    problems.push(...found);
    if (found.length > 0) return;
    const ref = cell(row, columns.reference);
    const header = headerOf(row, columns);
    const group = groups.get(ref);
    if (group === undefined) {
      groups.set(ref, { header, lines: [lineOf(row, 1)], first: line });
      return;
    }
    const differing = Object.keys(header).filter((name) => header[name] !== group.header[name]);
    if (differing.length > 0) {
      problems.push(
        `line ${line}: ${differing.join(', ')} differ from line ${group.first} of expense ${ref}`,
      );
    }
    group.lines.push(lineOf(row, group.lines.length + 1));
  });
  if (problems.length > 0) fail(problems);
  return [...groups].map(([ref, group]) => expenseOf(ref, group.header, group.lines));
}
