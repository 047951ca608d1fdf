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
import { DEFAULT_FORMATS, expectedAmount, normalAmount, normalDate, type CellFormats } from './formats.js';

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
const MAX_PROBLEMS = 10;
const AMOUNTS = ['amount_before_vat', 'vat_amount'] as const;
const DATES = ['doc_date', 'due_date'] as const;

/** A file that cannot be read as a whole; `line` is the first line at fault (null: the file as such, its header). */
export class ExpenseFileError extends Error {
  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(message);
    this.name = 'ExpenseFileError';
  }
}

/** One thing wrong in a file, at a line of it (null: the header). */
interface Problem {
  readonly line: number | null;
  readonly text: string;
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

/**
 * The row with its amounts and dates in the API's form (a plain decimal, YYYY-MM-DD), read in the formats the
 * config names, and what is wrong with it.
 */
function readRow(
  row: Row,
  line: number,
  columns: ExpenseColumns,
  formats: CellFormats,
): { row: Row; problems: Problem[] } {
  const texts: string[] = [];
  const read: Row = { ...row };
  for (const name of [columns.reference, ...REQUIRED]) {
    if (cell(row, name) === '') texts.push(`${name} is empty`);
  }
  for (const name of AMOUNTS) {
    const value = cell(row, name);
    const amount = value === '' ? '' : normalAmount(value, formats);
    if (amount === null) texts.push(`${name} "${value}" is not ${expectedAmount(formats)}`);
    else read[name] = amount;
  }
  for (const name of DATES) {
    const value = cell(row, name);
    const date = value === '' ? '' : normalDate(value, formats.dateFormat);
    if (date === null) texts.push(`${name} "${value}" is not a date (${formats.dateFormat})`);
    else read[name] = date;
  }
  const attachment = cell(row, columns.attachment);
  if (/[\\/]/.test(attachment) || attachment === '.' || attachment === '..') {
    texts.push(`${columns.attachment} "${attachment}" must be a file name in the drop folder`);
  }
  return { row: read, problems: texts.map((text) => ({ line, text: `line ${line}: ${text}` })) };
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

function fail(problems: readonly Problem[]): never {
  const more = problems.length > MAX_PROBLEMS ? ` (and ${problems.length - MAX_PROBLEMS} more)` : '';
  const listed = problems.slice(0, MAX_PROBLEMS).map((problem) => problem.text);
  throw new ExpenseFileError(`${listed.join('; ')}${more}`, problems[0]?.line ?? null);
}

/** Parses a file's text; throws ExpenseFileError naming the lines at fault. */
export function parseExpenseFile(
  text: string,
  separator: string,
  columns: ExpenseColumns,
  formats: CellFormats = DEFAULT_FORMATS,
): ParsedExpense[] {
  const rows = csvRecords(text, separator);
  const present = new Set(Object.keys(rows[0] ?? {}));
  const missing = [columns.reference, ...REQUIRED].filter((name) => !present.has(name));
  if (rows.length > 0 && missing.length > 0) {
    fail([{ line: 1, text: `line 1: the header has no column(s) ${missing.join(', ')}` }]);
  }
  const problems: Problem[] = [];
  const groups = new Map<
    string,
    { header: Record<string, string>; lines: SourceExpenseLine[]; first: number }
  >();
  rows.forEach((raw, index) => {
    const line = index + 2; // the header is line 1
    const { row, problems: found } = readRow(raw, line, columns, formats);
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
      problems.push({
        line,
        text: `line ${line}: ${differing.join(', ')} differ from line ${group.first} of expense ${ref}`,
      });
    }
    group.lines.push(lineOf(row, group.lines.length + 1));
  });
  if (problems.length > 0) fail(problems);
  return [...groups].map(([ref, group]) => expenseOf(ref, group.header, group.lines));
}
