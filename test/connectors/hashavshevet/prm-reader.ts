/**
 * An independent reader of flexible text import files, driven only by the PRM layout file and the documented
 * field order. It shares no code with the writer: decoding uses the platform's TextDecoder, parsing is its own.
 */
import { readFileSync } from 'node:fs';

/** The import's field order, as documented in docs/accounting.md. */
export const FIELD_ORDER = [
  'movement_type',
  'reference',
  'reference2',
  'reference_date',
  'value_date',
  'details',
  'debit_account_1',
  'debit_account_2',
  'credit_account_1',
  'credit_account_2',
  'debit_amount_1',
  'debit_amount_2',
  'credit_amount_1',
  'credit_amount_2',
  'foreign_debit_amount_1',
  'foreign_credit_amount_1',
  'quantity',
] as const;

export type FieldName = (typeof FIELD_ORDER)[number];

export interface Layout {
  recordLength: number;
  /** Fields the file carries, with 1-based inclusive positions; unused ("0 0") fields are absent. */
  positions: Map<FieldName, { start: number; end: number }>;
}

export function readLayout(prmFile: string): Layout {
  const bytes = readFileSync(prmFile);
  const text = bytes.toString('latin1');
  if (!text.endsWith('\r\n')) throw new Error('PRM file does not end with CRLF');
  const lines = text.slice(0, -2).split('\r\n');
  const [first, ...pairs] = lines;
  const recordLength = Number(first);
  if (!Number.isInteger(recordLength) || recordLength <= 0) throw new Error(`bad record length "${first}"`);
  if (pairs.length !== FIELD_ORDER.length) {
    throw new Error(`PRM lists ${pairs.length} fields, expected ${FIELD_ORDER.length}`);
  }
  const positions = new Map<FieldName, { start: number; end: number }>();
  pairs.forEach((pair, index) => {
    const match = /^(\d+) (\d+)$/.exec(pair);
    const name = FIELD_ORDER[index];
    if (!match || name === undefined) throw new Error(`bad PRM line "${pair}"`);
    const start = Number(match[1]);
    const end = Number(match[2]);
    if (start === 0 && end === 0) return;
    if (start < 1 || end < start || end > recordLength) throw new Error(`field ${name} out of range`);
    positions.set(name, { start, end });
  });
  return { recordLength, positions };
}

export interface RawRecord {
  /** The record's bytes, without the line ending. */
  bytes: Buffer;
  fields: Map<FieldName, string>;
}

/** Reads a data file: every record must be exactly recordLength bytes followed by CRLF. */
export function readRecords(docFile: string, layout: Layout): RawRecord[] {
  const bytes = readFileSync(docFile);
  const decoder = new TextDecoder('windows-1255');
  const records: RawRecord[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const end = offset + layout.recordLength;
    if (bytes[end] !== 0x0d || bytes[end + 1] !== 0x0a) {
      throw new Error(`record at byte ${offset} is not ${layout.recordLength} bytes followed by CRLF`);
    }
    const record = bytes.subarray(offset, end);
    if (record.includes(0x0d) || record.includes(0x0a)) throw new Error('line break inside a record');
    const fields = new Map<FieldName, string>();
    for (const [name, { start, end: last }] of layout.positions) {
      fields.set(name, decoder.decode(record.subarray(start - 1, last)));
    }
    records.push({ bytes: Buffer.from(record), fields });
    offset = end + 2;
  }
  return records;
}

/** "   1234.50" -> 123450 (agorot); blank -> 0. Refuses anything but digits, one point and two decimals. */
export function amountAgorot(field: string): bigint {
  const trimmed = field.trim();
  if (trimmed === '') return 0n;
  const match = /^(\d{1,9})\.(\d{2})$/.exec(trimmed);
  if (!match) throw new Error(`"${field}" is not a 9.2 amount`);
  return BigInt(match[1] ?? '0') * 100n + BigInt(match[2] ?? '0');
}
