/**
 * One dropped CSV file to a sales batch. The header row decides the kind: a file with an `item_code` column holds
 * item sales, one with `total_before_vat` holds Z-reports. Column names are matched case-insensitively.
 *
 * Z-reports:  branch_code, z_number, closed_at, total_before_vat [, description, orders_count, dine_in_total,
 *             dine_in_count, take_away_total, take_away_count, tips, cash_total, card_total, cheque_total,
 *             discounts_total]
 * Item sales: branch_code, z_number, value_date, item_code, item_name, quantity, unit_price, total
 *             [, line_number, main_category, sub_category]
 */
import type { ItemSaleRecord, SalesBatch, ZReportRecord } from '../../src/connector-contract/index.js';
import { csvRecords } from '../../src/kit/csv.js';

const Z_REQUIRED = ['branch_code', 'z_number', 'closed_at', 'total_before_vat'] as const;
const ITEM_REQUIRED = [
  'branch_code',
  'z_number',
  'value_date',
  'item_code',
  'item_name',
  'quantity',
  'unit_price',
  'total',
] as const;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const MAX_PROBLEMS = 10;

export class SalesFileError extends Error {
  constructor(
    message: string,
    /** The first line at fault (1 is the header), null when the file as such is unreadable. */
    readonly line: number | null = null,
  ) {
    super(message);
    this.name = 'SalesFileError';
  }
}

type Row = Record<string, string>;

function extras(row: Row, known: readonly string[]): Record<string, string | number | null> {
  const fields: Record<string, string | number | null> = {};
  for (const [name, value] of Object.entries(row)) {
    if (!known.includes(name) && name !== 'line_number') fields[name] = value === '' ? null : value;
  }
  return fields;
}

function checkRows(rows: readonly Row[], required: readonly string[], decimals: readonly string[]): void {
  const problems: string[] = [];
  let firstLine: number | null = null;
  rows.forEach((row, index) => {
    const line = index + 2; // the header is line 1
    for (const name of required) {
      if ((row[name] ?? '').trim() === '') problems.push(`line ${line}: ${name} is empty`);
    }
    for (const name of decimals) {
      const value = (row[name] ?? '').trim();
      if (value !== '' && !DECIMAL.test(value))
        problems.push(`line ${line}: ${name} "${value}" is not a number`);
    }
    const lineNumber = (row['line_number'] ?? '').trim();
    if (lineNumber !== '' && !/^\d+$/.test(lineNumber)) {
      problems.push(`line ${line}: line_number "${lineNumber}" is not a whole number`);
    }
    if (firstLine === null && problems.length > 0) firstLine = line;
  });
  if (problems.length > 0) {
    const more = problems.length > MAX_PROBLEMS ? ` (and ${problems.length - MAX_PROBLEMS} more)` : '';
    throw new SalesFileError(`${problems.slice(0, MAX_PROBLEMS).join('; ')}${more}`, firstLine);
  }
}

function zReport(row: Row): ZReportRecord {
  return {
    branchCode: (row['branch_code'] ?? '').trim(),
    zNumber: (row['z_number'] ?? '').trim(),
    closedAt: (row['closed_at'] ?? '').trim(),
    totalBeforeVat: (row['total_before_vat'] ?? '').trim(),
    fields: extras(row, Z_REQUIRED),
  };
}

function itemSale(row: Row): ItemSaleRecord {
  const lineNumber = (row['line_number'] ?? '').trim();
  return {
    branchCode: (row['branch_code'] ?? '').trim(),
    zNumber: (row['z_number'] ?? '').trim(),
    lineNumber: lineNumber === '' ? null : Number(lineNumber),
    valueDate: (row['value_date'] ?? '').trim(),
    itemCode: (row['item_code'] ?? '').trim(),
    itemName: (row['item_name'] ?? '').trim(),
    quantity: (row['quantity'] ?? '').trim(),
    unitPrice: (row['unit_price'] ?? '').trim(),
    total: (row['total'] ?? '').trim(),
    fields: extras(row, ITEM_REQUIRED),
  };
}

/** Parses a file's text; throws SalesFileError naming the lines at fault. */
export function parseSalesFile(ref: string, text: string, separator: string): SalesBatch {
  const rows = csvRecords(text, separator);
  const columns = new Set(rows.length > 0 ? Object.keys(rows[0] ?? {}) : headerOf(text, separator));
  if (columns.has('item_code')) {
    const missing = ITEM_REQUIRED.filter((name) => !columns.has(name));
    if (missing.length > 0)
      throw new SalesFileError(`item-sales file without column(s) ${missing.join(', ')}`, 1);
    checkRows(rows, ITEM_REQUIRED, ['quantity', 'unit_price', 'total']);
    return { ref, zReports: [], itemSales: rows.map(itemSale) };
  }
  if (columns.has('total_before_vat')) {
    const missing = Z_REQUIRED.filter((name) => !columns.has(name));
    if (missing.length > 0)
      throw new SalesFileError(`Z-report file without column(s) ${missing.join(', ')}`, 1);
    checkRows(rows, Z_REQUIRED, ['total_before_vat']);
    return { ref, zReports: rows.map(zReport), itemSales: [] };
  }
  throw new SalesFileError(
    'the header has neither item_code (item sales) nor total_before_vat (Z-reports); see docs/sales.md for the columns',
    1,
  );
}

function headerOf(text: string, separator: string): string[] {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  return firstLine.split(separator).map((name) => name.trim().toLowerCase());
}
