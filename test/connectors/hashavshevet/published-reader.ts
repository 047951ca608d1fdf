/**
 * The tests' own reader of Hashavshevet flexible text import files (MOVEIN.PRM layout + MOVEIN.DOC data), written
 * only from the published PRM line table (the dealers' public pages, as quoted in the engineering notes' "Accounting
 * targets (Israel)"). It shares nothing with production code: not the writer's layout, and not the reader
 * reconciliation uses (connectors/hashavshevet/published-reader.ts), so a writer that puts a field at the wrong line
 * number, or a change to the production reader, is caught here instead of being read back by the same code.
 *
 * What the published description fixes, and this reader checks:
 *  - PRM line 1 is the record length; line N (2..35) is "start end" (1-based, inclusive) of field N, "0 0" when the
 *    data file does not carry it. The meaning of each line number is fixed by the importer.
 *  - Maximum widths: movement type 3, references 9 digits, dates 10, costing code 8, currency 5, details 50,
 *    accounts 15, amounts 9.2, quantity 9.3, file 50, VAT registration number (line 29) 9 digits.
 *  - The data file is single-byte (windows-1255), one record per line, CRLF line endings.
 * Imports land in a temporary batch that must balance, so every movement is checked to balance on its own.
 */
import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';

export const PUBLISHED_PRM_LINES = 35;

type Kind = 'text' | 'digits' | 'date' | 'amount' | 'quantity';

interface PublishedField {
  readonly name: string;
  readonly kind: Kind;
  /** Maximum width in bytes; for amounts "9.2" is nine integer digits, a point and two decimals. */
  readonly max: number;
}

const AMOUNT_9_2 = 12;
const QUANTITY_9_3 = 13;

/** The published table, by PRM line number. Lines 26-35 other than 29 are "further optional fields". */
const PUBLISHED: Readonly<Record<number, PublishedField>> = {
  2: { name: 'movement type code', kind: 'text', max: 3 },
  3: { name: 'reference 1', kind: 'digits', max: 9 },
  4: { name: 'reference 2', kind: 'digits', max: 9 },
  5: { name: 'reference date', kind: 'date', max: 10 },
  6: { name: 'value date', kind: 'date', max: 10 },
  7: { name: 'costing code', kind: 'text', max: 8 },
  8: { name: 'currency code', kind: 'text', max: 5 },
  9: { name: 'details', kind: 'text', max: 50 },
  10: { name: 'debit account 1', kind: 'text', max: 15 },
  11: { name: 'debit account 2', kind: 'text', max: 15 },
  12: { name: 'credit account 1', kind: 'text', max: 15 },
  13: { name: 'credit account 2', kind: 'text', max: 15 },
  14: { name: 'debit amount 1 (ILS)', kind: 'amount', max: AMOUNT_9_2 },
  15: { name: 'debit amount 2 (ILS)', kind: 'amount', max: AMOUNT_9_2 },
  16: { name: 'credit amount 1 (ILS)', kind: 'amount', max: AMOUNT_9_2 },
  17: { name: 'credit amount 2 (ILS)', kind: 'amount', max: AMOUNT_9_2 },
  18: { name: 'debit amount 1 (foreign currency)', kind: 'amount', max: AMOUNT_9_2 },
  19: { name: 'debit amount 2 (foreign currency)', kind: 'amount', max: AMOUNT_9_2 },
  20: { name: 'credit amount 1 (foreign currency)', kind: 'amount', max: AMOUNT_9_2 },
  21: { name: 'credit amount 2 (foreign currency)', kind: 'amount', max: AMOUNT_9_2 },
  22: { name: 'date 3', kind: 'date', max: 10 },
  23: { name: 'reference 3', kind: 'digits', max: 9 },
  24: { name: 'quantity', kind: 'quantity', max: QUANTITY_9_3 },
  25: { name: 'file', kind: 'text', max: 50 },
  29: { name: 'counterparty VAT registration number', kind: 'digits', max: 9 },
};

function publishedField(line: number): PublishedField | undefined {
  return PUBLISHED[line];
}

export interface PrmPosition {
  readonly start: number;
  readonly end: number;
}

export interface PublishedLayout {
  readonly recordLength: number;
  /** Filled lines only ("0 0" lines are absent), by PRM line number. */
  readonly positions: ReadonlyMap<number, PrmPosition>;
}

export interface AccountAmount {
  readonly account: string;
  readonly agorot: bigint;
}

/** One record of the data file, read through the published meanings of the PRM lines. */
export interface PublishedMovement {
  readonly movementType: string;
  readonly reference1: string;
  readonly reference2: string;
  /** ISO dates (YYYY-MM-DD), or '' when blank. */
  readonly referenceDate: string;
  readonly valueDate: string;
  readonly costingCode: string;
  readonly currency: string;
  readonly details: string;
  readonly vatNumber: string;
  readonly debits: readonly AccountAmount[];
  readonly credits: readonly AccountAmount[];
  /** Every filled field's text as decoded (untrimmed), by PRM line number. */
  readonly raw: ReadonlyMap<number, string>;
  /** The record's bytes, without its CRLF. */
  readonly bytes: Buffer;
}

export class PublishedFormatError extends Error {}

function fail(message: string): never {
  throw new PublishedFormatError(message);
}

/** Splits a file into lines that must each end with CRLF (no bare LF or CR anywhere). */
function crlfLines(bytes: Buffer, what: string): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i];
    if (byte === 0x0a) fail(`${what}: LF without CR at byte ${i}`);
    if (byte !== 0x0d) continue;
    if (bytes[i + 1] !== 0x0a) fail(`${what}: CR without LF at byte ${i}`);
    lines.push(bytes.subarray(start, i));
    i += 1;
    start = i + 1;
  }
  if (start !== bytes.length) fail(`${what}: the last line does not end with CRLF`);
  return lines;
}

export function parsePublishedPrm(bytes: Buffer): PublishedLayout {
  const lines = crlfLines(bytes, 'PRM').map((line) => line.toString('latin1'));
  if (lines.length !== PUBLISHED_PRM_LINES) {
    fail(`PRM has ${lines.length} lines; the importer reads exactly ${PUBLISHED_PRM_LINES}`);
  }
  const first = lines[0] ?? '';
  if (!/^[1-9]\d*$/.test(first)) fail(`PRM line 1 "${first}" is not a record length`);
  const recordLength = Number(first);
  const positions = new Map<number, PrmPosition>();
  lines.slice(1).forEach((text, index) => {
    const line = index + 2;
    const match = /^(\d+) (\d+)$/.exec(text);
    if (!match) fail(`PRM line ${line} "${text}" is not "start end"`);
    const start = Number(match[1]);
    const end = Number(match[2]);
    if (start === 0 && end === 0) return;
    if (start < 1 || end < start || end > recordLength) {
      fail(`PRM line ${line} spans ${start}-${end}, outside a record of ${recordLength}`);
    }
    const field = publishedField(line);
    const width = end - start + 1;
    if (field !== undefined && width > field.max) {
      fail(`PRM line ${line} is ${field.name} (at most ${field.max} characters) but spans ${start}-${end}`);
    }
    if (field?.kind === 'date' && ![6, 8, 10].includes(width)) {
      fail(`PRM line ${line} is ${field.name} but is ${width} wide (DDMMYY, DDMMYYYY or DD/MM/YYYY)`);
    }
    for (const [other, at] of positions) {
      if (start <= at.end && at.start <= end) fail(`PRM lines ${other} and ${line} overlap`);
    }
    positions.set(line, { start, end });
  });
  return { recordLength, positions };
}

const DIGITS = /^ *\d*$/;
const AMOUNT = /^ *(\d{1,9})\.(\d{2})$/;
const QUANTITY = /^ *-?\d{1,9}\.\d{3}$/;

/** Right-aligned digits: leading blanks only. */
function checkDigits(value: string, where: string): string {
  if (!DIGITS.test(value)) fail(`${where} "${value}" is not digits aligned right`);
  return value.trim();
}

function parseAmount(value: string, where: string): bigint {
  if (value.trim() === '') return 0n;
  const match = AMOUNT.exec(value);
  if (!match) fail(`${where} "${value}" is not a 9.2 amount aligned right`);
  return BigInt(match[1] ?? '') * 100n + BigInt(match[2] ?? '');
}

/** DDMMYY, DDMMYYYY, DD/MM/YY or DD/MM/YYYY to an ISO date, checked against the calendar. */
function parseDate(value: string, where: string): string {
  if (value.trim() === '') return '';
  const match = /^(\d{2})\/?(\d{2})\/?(\d{2}|\d{4})$/.exec(value);
  const slashes = value.split('/').length - 1;
  if (!match || (slashes !== 0 && slashes !== 2)) fail(`${where} "${value}" is not a date`);
  const [, day = '', month = '', yearText = ''] = match;
  const year = yearText.length === 2 ? `20${yearText}` : yearText;
  const iso = `${year}-${month}-${day}`;
  const parsed = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== iso) {
    fail(`${where} "${value}" is not a calendar date`);
  }
  return iso;
}

/** Left-aligned text: blank, or starting with a non-blank character. */
function checkText(value: string, where: string): string {
  if (value.trim() !== '' && value.startsWith(' ')) fail(`${where} "${value}" is not aligned left`);
  return value.trimEnd();
}

function decodeWindows1255(bytes: Buffer, where: string): string {
  for (const byte of bytes) {
    if (byte < 0x20 || byte === 0x7f) fail(`${where}: control byte 0x${byte.toString(16)}`);
  }
  const text = iconv.decode(bytes, 'windows-1255');
  if (text.includes('\ufffd')) fail(`${where}: a byte that windows-1255 does not define`);
  if (text.length !== bytes.length) fail(`${where}: not one byte per character`);
  return text;
}

function pairs(
  fields: ReadonlyMap<number, string>,
  where: string,
  accountLines: readonly number[],
  amountLines: readonly number[],
): AccountAmount[] {
  const out: AccountAmount[] = [];
  accountLines.forEach((accountLine, i) => {
    const amountLine = amountLines[i] ?? 0;
    const account = checkText(fields.get(accountLine) ?? '', `${where} line ${accountLine}`);
    const agorot = parseAmount(fields.get(amountLine) ?? '', `${where} line ${amountLine}`);
    if ((account === '') !== (agorot === 0n)) {
      fail(`${where}: account (line ${accountLine}) "${account}" and amount (line ${amountLine}) disagree`);
    }
    if (account !== '') out.push({ account, agorot });
  });
  return out;
}

function movementOf(record: Buffer, layout: PublishedLayout, where: string): PublishedMovement {
  const raw = new Map<number, string>();
  for (const [line, { start, end }] of layout.positions) {
    raw.set(line, decodeWindows1255(record.subarray(start - 1, end), `${where} line ${line}`));
  }
  const fieldText = (line: number) => raw.get(line) ?? '';
  for (const [line, value] of raw) {
    const field = publishedField(line);
    const at = `${where} PRM line ${line} (${field?.name ?? 'optional field'})`;
    if (field?.kind === 'digits') checkDigits(value, at);
    if (field?.kind === 'quantity' && value.trim() !== '' && !QUANTITY.test(value)) fail(`${at} "${value}"`);
    if (field?.kind === 'amount') parseAmount(value, at);
    if (field?.kind === 'date') parseDate(value, at);
    if (field?.kind === 'text') checkText(value, at);
  }
  const debits = pairs(raw, where, [10, 11], [14, 15]);
  const credits = pairs(raw, where, [12, 13], [16, 17]);
  const sum = (side: readonly AccountAmount[]) => side.reduce((total, slot) => total + slot.agorot, 0n);
  if (sum(debits) !== sum(credits)) {
    fail(`${where} does not balance: debit ${sum(debits)} agorot, credit ${sum(credits)} agorot`);
  }
  if (debits.length === 0) fail(`${where} moves no amount`);
  return {
    movementType: fieldText(2).trimEnd(),
    reference1: fieldText(3).trim(),
    reference2: fieldText(4).trim(),
    referenceDate: parseDate(fieldText(5), `${where} line 5`),
    valueDate: parseDate(fieldText(6), `${where} line 6`),
    costingCode: fieldText(7).trimEnd(),
    currency: fieldText(8).trimEnd(),
    details: fieldText(9).trimEnd(),
    vatNumber: fieldText(29).trim(),
    debits,
    credits,
    raw,
    bytes: Buffer.from(record),
  };
}

export function parsePublishedDoc(bytes: Buffer, layout: PublishedLayout): PublishedMovement[] {
  return crlfLines(bytes, 'DOC').map((record, index) => {
    const where = `DOC record ${index + 1}`;
    if (record.length !== layout.recordLength) {
      fail(`${where} is ${record.length} bytes; the PRM's record length is ${layout.recordLength}`);
    }
    return movementOf(record, layout, where);
  });
}

export interface PublishedImport {
  readonly layout: PublishedLayout;
  readonly movements: readonly PublishedMovement[];
}

/** Reads a PRM + DOC pair; throws PublishedFormatError naming what the importer would misread. */
export function readPublishedImport(prmFile: string, docFile: string): PublishedImport {
  const layout = parsePublishedPrm(readFileSync(prmFile));
  return { layout, movements: parsePublishedDoc(readFileSync(docFile), layout) };
}

/** Debit and credit totals of movements, in agorot. */
export function movementTotals(movements: readonly PublishedMovement[]): { debit: bigint; credit: bigint } {
  let debit = 0n;
  let credit = 0n;
  for (const movement of movements) {
    for (const slot of movement.debits) debit += slot.agorot;
    for (const slot of movement.credits) credit += slot.agorot;
  }
  return { debit, credit };
}
