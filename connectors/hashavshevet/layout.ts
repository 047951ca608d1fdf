/**
 * The flexible text import's layout, as one table keyed by PRM line number. The importer gives every PRM line a
 * fixed meaning (line 7 is always the costing code, line 9 the details...), so a field's line number is part of the
 * format, not an order we choose. Line 1 of MOVEIN.PRM is the record length; line N (2..35) is the "start end"
 * (1-based, inclusive) of field N in the MOVEIN.DOC record, "0 0" for a field the file does not carry. Both the
 * PRM file and the DOC records are produced from this table, and the published maximum widths are enforced.
 */

export type DateFormat = 'DDMMYY' | 'DDMMYYYY' | 'DD/MM/YY' | 'DD/MM/YYYY';
export const DATE_FORMATS: readonly DateFormat[] = ['DDMMYY', 'DDMMYYYY', 'DD/MM/YY', 'DD/MM/YYYY'];

/** The PRM file always has this many lines: the record length, then lines 2 to 35. */
const PRM_LINE_COUNT = 35;

export type FieldName =
  | 'movement_type'
  | 'reference'
  | 'reference2'
  | 'reference_date'
  | 'value_date'
  | 'costing_code'
  | 'details'
  | 'debit_account_1'
  | 'debit_account_2'
  | 'credit_account_1'
  | 'credit_account_2'
  | 'debit_amount_1'
  | 'debit_amount_2'
  | 'credit_amount_1'
  | 'credit_amount_2'
  | 'vat_number';

/** text: left-aligned; digits and amounts: right-aligned; dates in the configured format. */
export type FieldKind = 'text' | 'digits' | 'date' | 'amount';

export interface FieldSpec {
  /** The PRM line that carries this field's position: fixed by the importer. */
  readonly line: number;
  readonly name: FieldName;
  /** How the published table names the field, for error messages. */
  readonly label: string;
  readonly kind: FieldKind;
  /** The published maximum width in bytes (one byte per character in windows-1255). */
  readonly maxWidth: number;
  /** Filled only when the connector config asks for it. */
  readonly optional?: 'costing_code' | 'vat_number';
}

/** Amounts are "9.2": up to nine integer digits, a point and two fraction digits. */
export const AMOUNT_WIDTH = 12;
export const MAX_AMOUNT_AGOROT = 99_999_999_999n;
export const REFERENCE_DIGITS = 9;
export const DATE_MAX_WIDTH = 10;
export const COSTING_CODE_WIDTH = 8;

/**
 * The fields this writer fills, by PRM line. Every other line (8 currency code, 18-21 foreign-currency amounts,
 * 22 date 3, 23 reference 3, 24 quantity, 25 file, 26-35 other than 29) is written as "0 0".
 */
const FIELD_TABLE: readonly FieldSpec[] = [
  { line: 2, name: 'movement_type', label: 'movement type code', kind: 'text', maxWidth: 3 },
  { line: 3, name: 'reference', label: 'reference 1', kind: 'digits', maxWidth: REFERENCE_DIGITS },
  { line: 4, name: 'reference2', label: 'reference 2', kind: 'digits', maxWidth: REFERENCE_DIGITS },
  { line: 5, name: 'reference_date', label: 'reference date', kind: 'date', maxWidth: DATE_MAX_WIDTH },
  { line: 6, name: 'value_date', label: 'value date', kind: 'date', maxWidth: DATE_MAX_WIDTH },
  {
    line: 7,
    name: 'costing_code',
    label: 'costing code',
    kind: 'text',
    maxWidth: COSTING_CODE_WIDTH,
    optional: 'costing_code',
  },
  { line: 9, name: 'details', label: 'details', kind: 'text', maxWidth: 50 },
  { line: 10, name: 'debit_account_1', label: 'debit account 1', kind: 'text', maxWidth: 15 },
  { line: 11, name: 'debit_account_2', label: 'debit account 2', kind: 'text', maxWidth: 15 },
  { line: 12, name: 'credit_account_1', label: 'credit account 1', kind: 'text', maxWidth: 15 },
  { line: 13, name: 'credit_account_2', label: 'credit account 2', kind: 'text', maxWidth: 15 },
  { line: 14, name: 'debit_amount_1', label: 'debit amount 1', kind: 'amount', maxWidth: AMOUNT_WIDTH },
  { line: 15, name: 'debit_amount_2', label: 'debit amount 2', kind: 'amount', maxWidth: AMOUNT_WIDTH },
  { line: 16, name: 'credit_amount_1', label: 'credit amount 1', kind: 'amount', maxWidth: AMOUNT_WIDTH },
  { line: 17, name: 'credit_amount_2', label: 'credit amount 2', kind: 'amount', maxWidth: AMOUNT_WIDTH },
  {
    line: 29,
    name: 'vat_number',
    label: "counterparty's VAT registration number",
    kind: 'digits',
    maxWidth: 9,
    optional: 'vat_number',
  },
];

export interface LayoutOptions {
  readonly dateFormat: DateFormat;
  /** Fill line 7 (costing code). */
  readonly costingCode: boolean;
  /** Fill line 29 (the counterparty's VAT registration number). */
  readonly vatNumber: boolean;
}

export interface PlacedField extends FieldSpec {
  /** The width this file gives the field: the published maximum, or the date format's length. */
  readonly width: number;
  /** 1-based first byte. */
  readonly start: number;
  /** 1-based last byte, inclusive. */
  readonly end: number;
}

export interface RecordLayout {
  readonly recordLength: number;
  /** The fields this file carries, in PRM line order (which is also their order in the record). */
  readonly fields: readonly PlacedField[];
}

function fieldWidth(spec: FieldSpec, format: DateFormat): number {
  return spec.kind === 'date' ? format.length : spec.maxWidth;
}

function carried(spec: FieldSpec, options: LayoutOptions): boolean {
  if (spec.optional === 'costing_code') return options.costingCode;
  if (spec.optional === 'vat_number') return options.vatNumber;
  return true;
}

export function buildLayout(options: LayoutOptions): RecordLayout {
  let position = 1;
  const fields: PlacedField[] = [];
  for (const spec of FIELD_TABLE) {
    if (!carried(spec, options)) continue;
    const width = fieldWidth(spec, options.dateFormat);
    fields.push({ ...spec, width, start: position, end: position + width - 1 });
    position += width;
  }
  return { recordLength: position - 1, fields };
}

/** The PRM file text (ASCII, CRLF): the record length, then one line per PRM line 2..35. */
export function layoutFileText(layout: RecordLayout): string {
  const byLine = new Map(layout.fields.map((field) => [field.line, field]));
  const lines = [String(layout.recordLength)];
  for (let line = 2; line <= PRM_LINE_COUNT; line += 1) {
    const field = byLine.get(line);
    lines.push(field === undefined ? '0 0' : `${field.start} ${field.end}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** "2026-03-07" in the configured format. */
export function formatDate(isoDate: string, format: DateFormat): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!match) throw new Error(`"${isoDate}" is not a YYYY-MM-DD date`);
  const [, year = '', month = '', day = ''] = match;
  const shortYear = year.slice(2);
  switch (format) {
    case 'DDMMYY':
      return `${day}${month}${shortYear}`;
    case 'DDMMYYYY':
      return `${day}${month}${year}`;
    case 'DD/MM/YY':
      return `${day}/${month}/${shortYear}`;
    case 'DD/MM/YYYY':
      return `${day}/${month}/${year}`;
  }
}
