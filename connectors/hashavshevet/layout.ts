/**
 * The fixed-width record of the flexible text import (MOVEIN.DOC) and its layout file (MOVEIN.PRM). The PRM file
 * lists the record length, then one "start end" pair (1-based, inclusive) per field in the import's field order;
 * "0 0" marks a field this file does not carry.
 */

export type DateFormat = 'DDMMYY' | 'DDMMYYYY' | 'DD/MM/YY' | 'DD/MM/YYYY';
export const DATE_FORMATS: readonly DateFormat[] = ['DDMMYY', 'DDMMYYYY', 'DD/MM/YY', 'DD/MM/YYYY'];

export type FieldName =
  | 'movement_type'
  | 'reference'
  | 'reference2'
  | 'reference_date'
  | 'value_date'
  | 'details'
  | 'debit_account_1'
  | 'debit_account_2'
  | 'credit_account_1'
  | 'credit_account_2'
  | 'debit_amount_1'
  | 'debit_amount_2'
  | 'credit_amount_1'
  | 'credit_amount_2'
  | 'foreign_debit_amount_1'
  | 'foreign_credit_amount_1'
  | 'quantity';

export type FieldKind = 'text' | 'number' | 'date' | 'amount';

interface FieldSpec {
  readonly name: FieldName;
  readonly kind: FieldKind;
  /** Width in bytes; 0 for a field this writer never fills (written as "0 0" in the PRM file). */
  readonly width: number;
}

/** Amounts are "9.2": up to nine integer digits, a point and two fraction digits. */
export const AMOUNT_WIDTH = 12;
export const MAX_AMOUNT_AGOROT = 99_999_999_999n;
export const REFERENCE_DIGITS = 9;
export const DETAILS_WIDTH = 50;
export const ACCOUNT_WIDTH = 15;
export const MOVEMENT_TYPE_WIDTH = 3;

export function dateWidth(format: DateFormat): number {
  return format.length;
}

/** The import's field order. Do not reorder: the PRM file's lines are positional. */
function fieldSpecs(format: DateFormat): FieldSpec[] {
  return [
    { name: 'movement_type', kind: 'text', width: MOVEMENT_TYPE_WIDTH },
    { name: 'reference', kind: 'number', width: REFERENCE_DIGITS },
    { name: 'reference2', kind: 'number', width: REFERENCE_DIGITS },
    { name: 'reference_date', kind: 'date', width: dateWidth(format) },
    { name: 'value_date', kind: 'date', width: dateWidth(format) },
    { name: 'details', kind: 'text', width: DETAILS_WIDTH },
    { name: 'debit_account_1', kind: 'text', width: ACCOUNT_WIDTH },
    { name: 'debit_account_2', kind: 'text', width: ACCOUNT_WIDTH },
    { name: 'credit_account_1', kind: 'text', width: ACCOUNT_WIDTH },
    { name: 'credit_account_2', kind: 'text', width: ACCOUNT_WIDTH },
    { name: 'debit_amount_1', kind: 'amount', width: AMOUNT_WIDTH },
    { name: 'debit_amount_2', kind: 'amount', width: AMOUNT_WIDTH },
    { name: 'credit_amount_1', kind: 'amount', width: AMOUNT_WIDTH },
    { name: 'credit_amount_2', kind: 'amount', width: AMOUNT_WIDTH },
    { name: 'foreign_debit_amount_1', kind: 'amount', width: 0 },
    { name: 'foreign_credit_amount_1', kind: 'amount', width: 0 },
    { name: 'quantity', kind: 'number', width: 0 },
  ];
}

export interface PlacedField {
  readonly name: FieldName;
  readonly kind: FieldKind;
  /** 1-based first byte, 0 when unused. */
  readonly start: number;
  /** 1-based last byte (inclusive), 0 when unused. */
  readonly end: number;
  readonly width: number;
}

export interface RecordLayout {
  readonly recordLength: number;
  readonly fields: readonly PlacedField[];
}

export function buildLayout(format: DateFormat): RecordLayout {
  let position = 1;
  const fields = fieldSpecs(format).map((spec): PlacedField => {
    if (spec.width === 0) return { ...spec, start: 0, end: 0 };
    const placed = { ...spec, start: position, end: position + spec.width - 1 };
    position += spec.width;
    return placed;
  });
  return { recordLength: position - 1, fields };
}

/** The PRM file text (ASCII, CRLF). */
export function layoutFileText(layout: RecordLayout): string {
  const lines = [String(layout.recordLength), ...layout.fields.map((f) => `${f.start} ${f.end}`)];
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
