/**
 * The tests' own reader of Hashavshevet flexible text import files (a MOVEIN.PRM layout and a MOVEIN.DOC data
 * file), written from the published PRM line table alone (the dealers' public pages, as the engineering notes'
 * "Accounting targets (Israel)" quote it). It imports nothing from connectors/ and copies none of its code: the
 * writer and the reader reconciliation uses are checked against it, never against themselves.
 *
 * How it reads: the PRM file becomes a list of placed columns (the published field of each filled line, with its
 * byte offset and width), sorted by offset. Each DOC record is walked left to right along that list; a byte no
 * column claims must be a blank, and every column is decoded from windows-1255 and checked against its published
 * kind and width. A movement must balance on its own, as the importer's temporary batch must.
 */
import { readFileSync } from 'node:fs';

/** The importer reads exactly this many PRM lines: the record length, then one line per field. */
export const PUBLISHED_PRM_LINES = 35;

type ColumnKind = 'code' | 'number' | 'date' | 'money' | 'quantity';

/** One row of the published table: the PRM line, what the importer reads there, and its widest form. */
interface TableRow {
  readonly line: number;
  readonly name: string;
  readonly kind: ColumnKind;
  readonly widest: number;
}

// "9.2": nine digits, a point, two decimals; "9.3": a sign, nine digits, a point, three decimals.
const MONEY_WIDTH = 9 + 1 + 2;
const QUANTITY_WIDTH = 1 + 9 + 1 + 3;

const TABLE: readonly TableRow[] = [
  { line: 2, name: 'movement type code', kind: 'code', widest: 3 },
  { line: 3, name: 'reference 1', kind: 'number', widest: 9 },
  { line: 4, name: 'reference 2', kind: 'number', widest: 9 },
  { line: 5, name: 'reference date', kind: 'date', widest: 10 },
  { line: 6, name: 'value date', kind: 'date', widest: 10 },
  { line: 7, name: 'costing code', kind: 'code', widest: 8 },
  { line: 8, name: 'currency code', kind: 'code', widest: 5 },
  { line: 9, name: 'details', kind: 'code', widest: 50 },
  { line: 10, name: 'debit account 1', kind: 'code', widest: 15 },
  { line: 11, name: 'debit account 2', kind: 'code', widest: 15 },
  { line: 12, name: 'credit account 1', kind: 'code', widest: 15 },
  { line: 13, name: 'credit account 2', kind: 'code', widest: 15 },
  { line: 14, name: 'debit amount 1 in ILS', kind: 'money', widest: MONEY_WIDTH },
  { line: 15, name: 'debit amount 2 in ILS', kind: 'money', widest: MONEY_WIDTH },
  { line: 16, name: 'credit amount 1 in ILS', kind: 'money', widest: MONEY_WIDTH },
  { line: 17, name: 'credit amount 2 in ILS', kind: 'money', widest: MONEY_WIDTH },
  { line: 18, name: 'debit amount 1 in foreign currency', kind: 'money', widest: MONEY_WIDTH },
  { line: 19, name: 'debit amount 2 in foreign currency', kind: 'money', widest: MONEY_WIDTH },
  { line: 20, name: 'credit amount 1 in foreign currency', kind: 'money', widest: MONEY_WIDTH },
  { line: 21, name: 'credit amount 2 in foreign currency', kind: 'money', widest: MONEY_WIDTH },
  { line: 22, name: 'date 3', kind: 'date', widest: 10 },
  { line: 23, name: 'reference 3', kind: 'number', widest: 9 },
  { line: 24, name: 'quantity', kind: 'quantity', widest: QUANTITY_WIDTH },
  { line: 25, name: 'file', kind: 'code', widest: 50 },
  { line: 29, name: 'counterparty VAT registration number', kind: 'number', widest: 9 },
];

/** The two debit and two credit slots of a movement: an account and its ILS amount. */
const DEBIT_SLOTS = [
  [10, 14],
  [11, 15],
] as const;
const CREDIT_SLOTS = [
  [12, 16],
  [13, 17],
] as const;

function rowOf(line: number): TableRow {
  return (
    TABLE.find((row) => row.line === line) ?? {
      line,
      name: 'further optional field',
      kind: 'code',
      widest: 50,
    }
  );
}

export class PublishedFormatError extends Error {}

function refuse(message: string): never {
  throw new PublishedFormatError(message);
}

export interface PrmPosition {
  /** 1-based, inclusive, as the PRM line gives them. */
  readonly start: number;
  readonly end: number;
}

export interface PublishedLayout {
  readonly recordLength: number;
  /** The filled PRM lines only, by line number. */
  readonly positions: ReadonlyMap<number, PrmPosition>;
}

/** A filled PRM line as the walker uses it: 0-based offset and width. */
interface PlacedColumn {
  readonly row: TableRow;
  readonly offset: number;
  readonly width: number;
}

export interface AccountAmount {
  readonly account: string;
  readonly agorot: bigint;
}

/** One DOC record, read by the published meaning of each PRM line. */
export interface PublishedMovement {
  readonly movementType: string;
  readonly reference1: string;
  readonly reference2: string;
  /** YYYY-MM-DD, or '' when the field is blank. */
  readonly referenceDate: string;
  readonly valueDate: string;
  readonly costingCode: string;
  readonly currency: string;
  readonly details: string;
  readonly vatNumber: string;
  readonly debits: readonly AccountAmount[];
  readonly credits: readonly AccountAmount[];
  /** Each filled column's decoded text, blanks kept, by PRM line number. */
  readonly raw: ReadonlyMap<number, string>;
  /** The record's bytes without its line end. */
  readonly bytes: Buffer;
}

/** Cuts a file at CRLF; a lone CR or LF, or a last line without its CRLF, is refused. */
function splitAtCrlf(file: Buffer, label: string): Buffer[] {
  file.forEach((byte, at) => {
    if (byte === 0x0a && file[at - 1] !== 0x0d) refuse(`${label}: LF without CR at byte ${at}`);
    if (byte === 0x0d && file[at + 1] !== 0x0a) refuse(`${label}: CR without LF at byte ${at}`);
  });
  const records: Buffer[] = [];
  let from = 0;
  for (let at = file.indexOf('\r\n', 0, 'latin1'); at !== -1; at = file.indexOf('\r\n', from, 'latin1')) {
    records.push(file.subarray(from, at));
    from = at + 2;
  }
  if (from !== file.length) refuse(`${label}: the last line does not end with CRLF`);
  return records;
}

function placeColumn(line: number, text: string, recordLength: number): PlacedColumn | null {
  const pair = /^(\d+) (\d+)$/.exec(text);
  if (pair === null) refuse(`PRM line ${line} "${text}" is not "start end"`);
  const start = Number(pair[1]);
  const end = Number(pair[2]);
  if (start === 0 && end === 0) return null;
  if (start < 1 || end < start || end > recordLength) {
    refuse(`PRM line ${line} spans ${start}-${end}, outside a record of ${recordLength}`);
  }
  const row = rowOf(line);
  const width = end - start + 1;
  if (width > row.widest) {
    refuse(`PRM line ${line} is ${row.name} (at most ${row.widest} characters) but spans ${start}-${end}`);
  }
  if (row.kind === 'date' && width !== 6 && width !== 8 && width !== 10) {
    refuse(`PRM line ${line} is ${row.name} but is ${width} wide; a date is 6, 8 or 10`);
  }
  return { row, offset: start - 1, width };
}

function columnsOf(layout: PublishedLayout): PlacedColumn[] {
  return [...layout.positions]
    .map(([line, { start, end }]) => ({ row: rowOf(line), offset: start - 1, width: end - start + 1 }))
    .sort((a, b) => a.offset - b.offset);
}

export function parsePublishedPrm(file: Buffer): PublishedLayout {
  const lines = splitAtCrlf(file, 'PRM').map((line) => line.toString('latin1'));
  if (lines.length !== PUBLISHED_PRM_LINES) {
    refuse(`PRM has ${lines.length} lines; the importer reads exactly ${PUBLISHED_PRM_LINES}`);
  }
  const [lengthText = '', ...fieldLines] = lines;
  if (!/^[1-9][0-9]*$/.test(lengthText)) refuse(`PRM line 1 "${lengthText}" is not a record length`);
  const recordLength = Number(lengthText);
  const positions = new Map<number, PrmPosition>();
  fieldLines.forEach((text, index) => {
    const column = placeColumn(index + 2, text, recordLength);
    if (column !== null) {
      positions.set(column.row.line, { start: column.offset + 1, end: column.offset + column.width });
    }
  });
  const sorted = columnsOf({ recordLength, positions });
  sorted.forEach((column, i) => {
    const next = sorted[i + 1];
    if (next !== undefined && next.offset < column.offset + column.width) {
      refuse(`PRM lines ${column.row.line} and ${next.row.line} overlap`);
    }
  });
  return { recordLength, positions };
}

const HEBREW_DECODER = new TextDecoder('windows-1255', { fatal: true });

function decodeColumn(bytes: Buffer, label: string): string {
  const control = bytes.findIndex((byte) => byte < 0x20 || byte === 0x7f);
  if (control !== -1) refuse(`${label}: control byte 0x${(bytes[control] ?? 0).toString(16)}`);
  let text: string;
  try {
    text = HEBREW_DECODER.decode(bytes);
  } catch {
    return refuse(`${label}: a byte that windows-1255 does not define`);
  }
  if (text.length !== bytes.length) refuse(`${label}: not one byte per character`);
  return text;
}

/** Money "9.2" aligned right, in agorot; blank is zero. */
function agorotOf(text: string, label: string): bigint {
  if (/^ *$/.test(text)) return 0n;
  const money = /^ *([0-9]{1,9})\.([0-9]{2})$/.exec(text);
  if (money === null) refuse(`${label} "${text}" is not a 9.2 amount aligned right`);
  return BigInt(`${money[1]}${money[2]}`);
}

/** DDMMYY, DDMMYYYY, DD/MM/YY or DD/MM/YYYY as YYYY-MM-DD; blank is ''. */
function isoDateOf(text: string, label: string): string {
  if (/^ *$/.test(text)) return '';
  const date = /^([0-9]{2})(\/?)([0-9]{2})\2([0-9]{4}|[0-9]{2})$/.exec(text);
  if (date === null) refuse(`${label} "${text}" is not a date`);
  const [, day, , month, year = ''] = date;
  const iso = `${year.length === 2 ? `20${year}` : year}-${month}-${day}`;
  const check = new Date(`${iso}T12:00:00Z`);
  if (Number.isNaN(check.valueOf()) || check.toISOString().slice(0, 10) !== iso) {
    refuse(`${label} "${text}" is not a calendar date`);
  }
  return iso;
}

function checkColumn(row: TableRow, text: string, label: string): void {
  const blank = /^ *$/.test(text);
  if (row.kind === 'number' && !/^ *[0-9]*$/.test(text))
    refuse(`${label} "${text}" is not digits aligned right`);
  if (row.kind === 'code' && !blank && text.startsWith(' ')) refuse(`${label} "${text}" is not aligned left`);
  if (row.kind === 'money') agorotOf(text, label);
  if (row.kind === 'date') isoDateOf(text, label);
  if (row.kind === 'quantity' && !blank && !/^ *-?[0-9]{1,9}\.[0-9]{3}$/.test(text)) {
    refuse(`${label} "${text}" is not a 9.3 quantity aligned right`);
  }
}

/** Walks a record along its columns: blanks between them, each column decoded and checked. */
function walkRecord(record: Buffer, columns: readonly PlacedColumn[], label: string): Map<number, string> {
  const texts = new Map<number, string>();
  let cursor = 0;
  const blanksUpTo = (offset: number) => {
    const stray = record.subarray(cursor, offset).findIndex((byte) => byte !== 0x20);
    if (stray !== -1) refuse(`${label}: byte ${cursor + stray + 1} lies in no PRM field and is not blank`);
  };
  for (const column of columns) {
    blanksUpTo(column.offset);
    const where = `${label} PRM line ${column.row.line} (${column.row.name})`;
    const text = decodeColumn(record.subarray(column.offset, column.offset + column.width), where);
    checkColumn(column.row, text, where);
    texts.set(column.row.line, text);
    cursor = column.offset + column.width;
  }
  blanksUpTo(record.length);
  return texts;
}

function slotsOf(
  texts: ReadonlyMap<number, string>,
  slots: readonly (readonly [number, number])[],
  label: string,
): AccountAmount[] {
  const filled: AccountAmount[] = [];
  for (const [accountLine, amountLine] of slots) {
    const account = (texts.get(accountLine) ?? '').trimEnd();
    const agorot = agorotOf(texts.get(amountLine) ?? '', `${label} line ${amountLine}`);
    if ((account === '') !== (agorot === 0n)) {
      refuse(`${label}: account (line ${accountLine}) "${account}" and amount (line ${amountLine}) disagree`);
    }
    if (account !== '') filled.push({ account, agorot });
  }
  return filled;
}

function movementOf(record: Buffer, columns: readonly PlacedColumn[], label: string): PublishedMovement {
  const raw = walkRecord(record, columns, label);
  const text = (line: number) => raw.get(line) ?? '';
  const debits = slotsOf(raw, DEBIT_SLOTS, label);
  const credits = slotsOf(raw, CREDIT_SLOTS, label);
  if (debits.length === 0) refuse(`${label} moves no amount`);
  const total = (side: readonly AccountAmount[]) => side.reduce((sum, slot) => sum + slot.agorot, 0n);
  if (total(debits) !== total(credits)) {
    refuse(`${label} does not balance: debit ${total(debits)} agorot, credit ${total(credits)} agorot`);
  }
  return {
    movementType: text(2).trimEnd(),
    reference1: text(3).trim(),
    reference2: text(4).trim(),
    referenceDate: isoDateOf(text(5), `${label} line 5`),
    valueDate: isoDateOf(text(6), `${label} line 6`),
    costingCode: text(7).trimEnd(),
    currency: text(8).trimEnd(),
    details: text(9).trimEnd(),
    vatNumber: text(29).trim(),
    debits,
    credits,
    raw,
    bytes: Buffer.from(record),
  };
}

export function parsePublishedDoc(file: Buffer, layout: PublishedLayout): PublishedMovement[] {
  const columns = columnsOf(layout);
  return splitAtCrlf(file, 'DOC').map((record, index) => {
    const label = `DOC record ${index + 1}`;
    if (record.length !== layout.recordLength) {
      refuse(`${label} is ${record.length} bytes; the PRM's record length is ${layout.recordLength}`);
    }
    return movementOf(record, columns, label);
  });
}

export interface PublishedImport {
  readonly layout: PublishedLayout;
  readonly movements: readonly PublishedMovement[];
}

/** Reads a PRM and DOC pair; throws PublishedFormatError naming what the importer would misread. */
export function readPublishedImport(prmFile: string, docFile: string): PublishedImport {
  const layout = parsePublishedPrm(readFileSync(prmFile));
  return { layout, movements: parsePublishedDoc(readFileSync(docFile), layout) };
}

/** Debit and credit totals of movements, in agorot. */
export function movementTotals(movements: readonly PublishedMovement[]): { debit: bigint; credit: bigint } {
  const sum = (pick: (m: PublishedMovement) => readonly AccountAmount[]) =>
    movements.flatMap(pick).reduce((total, slot) => total + slot.agorot, 0n);
  return { debit: sum((m) => m.debits), credit: sum((m) => m.credits) };
}
