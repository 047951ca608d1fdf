/** Renders a journal batch as CSV text: configured columns, separator, quoting, date format, CRLF. */
import type { JournalBatch, JournalEntry } from '../../src/connector-contract/journal.js';
import type { CsvAccountingConfig, CsvEntryField } from './config.js';

const ZERO = '0.00';

export function formatCsvDate(isoDate: string, pattern: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!match) throw new Error(`"${isoDate}" is not a YYYY-MM-DD date`);
  const [, year = '', month = '', day = ''] = match;
  return pattern.replace(/YYYY|YY|MM|DD/g, (token) => {
    switch (token) {
      case 'YYYY':
        return year;
      case 'YY':
        return year.slice(2);
      case 'MM':
        return month;
      default:
        return day;
    }
  });
}

function fieldValue(
  field: CsvEntryField,
  batchKey: string,
  entry: JournalEntry,
  datePattern: string,
): string {
  switch (field) {
    case 'batch_key':
      return batchKey;
    case 'line_number':
      return String(entry.lineNumber);
    case 'side':
      return entry.side;
    case 'account':
      return entry.account;
    case 'counter_account':
      return entry.counterAccount ?? '';
    case 'amount':
      return entry.amount;
    case 'debit':
      return entry.side === 'debit' ? entry.amount : ZERO;
    case 'credit':
      return entry.side === 'credit' ? entry.amount : ZERO;
    case 'currency':
      return entry.currency;
    case 'date':
      return formatCsvDate(entry.date, datePattern);
    case 'value_date':
      return formatCsvDate(entry.valueDate, datePattern);
    case 'period':
      return entry.period;
    case 'reference':
      return entry.reference;
    case 'reference2':
      return entry.reference2 ?? '';
    case 'branch_code':
      return entry.branchCode ?? '';
    case 'movement_type':
      return entry.movementType ?? '';
    case 'description':
      return entry.description;
    case 'source_ids':
      return entry.sourceIds.join(' ');
  }
}

export function quoteCell(value: string, separator: string, quoting: 'minimal' | 'all'): string {
  const needs =
    quoting === 'all' ||
    value.includes(separator) ||
    value.includes('"') ||
    value.includes('\r') ||
    value.includes('\n') ||
    value !== value.trim();
  return needs ? `"${value.replace(/"/g, '""')}"` : value;
}

/** `cellText` adapts each cell's text before quoting (for example to a single-byte character set). */
export function renderCsv(
  batch: JournalBatch,
  config: CsvAccountingConfig,
  cellText: (value: string) => string = (value) => value,
): string {
  const row = (cells: readonly string[]) =>
    cells.map((cell) => quoteCell(cellText(cell), config.separator, config.quoting)).join(config.separator);
  const lines: string[] = [];
  if (config.header) lines.push(row(config.columns.map((c) => c.header)));
  for (const entry of batch.entries) {
    lines.push(
      row(
        config.columns.map((c) =>
          'field' in c ? fieldValue(c.field, batch.batchKey, entry, config.date_format) : c.value,
        ),
      ),
    );
  }
  return lines.map((line) => `${line}\r\n`).join('');
}
