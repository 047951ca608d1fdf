/**
 * Reads what reached the accounting targets, independently of the writers' code: Hashavshevet files are read with
 * the reader written from the published PRM line table alone (it throws on anything the importer would misread,
 * including a movement that does not balance), and compared with the journal lines the sandbox holds.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { readPublishedImport } from '../../connectors/hashavshevet/published-reader.js';

export interface AccountTotals {
  debit: bigint;
  credit: bigint;
}

export interface FileTotals {
  files: string[];
  movements: number;
  debit: bigint;
  credit: bigint;
  /** Debit and credit per account, in agorot. */
  accounts: Map<string, AccountTotals>;
  /** Reference 1 (PRM line 3) of every movement. */
  references: Set<string>;
}

function emptyTotals(): FileTotals {
  return { files: [], movements: 0, debit: 0n, credit: 0n, accounts: new Map(), references: new Set() };
}

function account(totals: FileTotals, name: string): AccountTotals {
  let found = totals.accounts.get(name);
  if (found === undefined) {
    found = { debit: 0n, credit: 0n };
    totals.accounts.set(name, found);
  }
  return found;
}

function addFile(totals: FileTotals, folder: string, name: string): void {
  totals.files.push(name);
  const { movements } = readPublishedImport(join(folder, name.replace(/\.DOC$/, '.PRM')), join(folder, name));
  for (const movement of movements) {
    totals.movements += 1;
    totals.references.add(movement.reference1);
    for (const slot of movement.debits) {
      totals.debit += slot.agorot;
      account(totals, slot.account).debit += slot.agorot;
    }
    for (const slot of movement.credits) {
      totals.credit += slot.agorot;
      account(totals, slot.account).credit += slot.agorot;
    }
  }
}

/** Data file names in the import folder and its done/ subfolder. */
function dataFiles(importDir: string): { folder: string; name: string }[] {
  const found: { folder: string; name: string }[] = [];
  for (const folder of [importDir, join(importDir, 'done')]) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    for (const name of names.filter((n) => n.endsWith('.DOC')).sort()) found.push({ folder, name });
  }
  return found;
}

/** Every data file in the import folder and its done/ subfolder, read with the published reader. */
export function hashavshevetTotals(importDir: string): FileTotals {
  const totals = emptyTotals();
  for (const { folder, name } of dataFiles(importDir)) addFile(totals, folder, name);
  return totals;
}

/** Totals per batch key (from the file name); a key found twice (folder and done/) throws. */
export function hashavshevetTotalsByFile(importDir: string): Map<string, FileTotals> {
  const byKey = new Map<string, FileTotals>();
  for (const { folder, name } of dataFiles(importDir)) {
    const key = name.replace(/^MOVEIN-|\.DOC$/g, '');
    if (byKey.has(key)) throw new Error(`batch ${key} was written twice`);
    const totals = emptyTotals();
    addFile(totals, folder, name);
    byKey.set(key, totals);
  }
  return byKey;
}

export interface AmountLine {
  side: string;
  amount: string;
  document_type: string;
  account: string;
  reference: string;
}

function agorot(amount: string): bigint {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  const value = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2));
  return negative ? -value : value;
}

/** Whether a line lands on the debit side (VAT is a debit except on credit notes; a negative amount swaps). */
function isDebit(line: AmountLine): boolean {
  const debit = line.side === 'debit' || (line.side === 'vat' && line.document_type !== 'credit_note');
  return line.amount.startsWith('-') ? !debit : debit;
}

/** What the lines put on the debit side of the books, as "1234.56": the amount of their balanced documents. */
export function debitTotal(lines: readonly AmountLine[]): string {
  let total = 0n;
  for (const line of lines) {
    const value = agorot(line.amount);
    if (isDebit(line)) total += value < 0n ? -value : value;
  }
  return `${total / 100n}.${String(total % 100n).padStart(2, '0')}`;
}

/** A reference as the harness's `long_references: last_digits` rule writes it (nine digits at most). */
function writtenReference(reference: string): string {
  return /^\d{1,9}$/.test(reference) ? reference : reference.replace(/\D/g, '').slice(-9);
}

/**
 * The books hold exactly these lines: the same debit and credit totals, the same totals per account and side, and
 * a movement for every document reference (and none other), to the agora. With `references: 'sequence'` the
 * writer numbered the documents itself, so only the number of distinct references is compared.
 */
export function expectBooksMatchLines(
  totals: FileTotals,
  lines: readonly AmountLine[],
  options: { references: 'last_digits' | 'sequence' } = { references: 'last_digits' },
): void {
  const expected = emptyTotals();
  for (const line of lines) {
    const value = agorot(line.amount);
    const amount = value < 0n ? -value : value;
    if (amount === 0n) continue;
    expected.references.add(writtenReference(line.reference));
    if (isDebit(line)) {
      expected.debit += amount;
      account(expected, line.account).debit += amount;
    } else {
      expected.credit += amount;
      account(expected, line.account).credit += amount;
    }
  }
  expect(totals.debit).toBe(expected.debit);
  expect(totals.credit).toBe(expected.credit);
  expect(totals.accounts).toEqual(expected.accounts);
  if (options.references === 'last_digits') expect(totals.references).toEqual(expected.references);
  else expect(totals.references.size).toBe(expected.references.size);
  expect(lines.length).toBeGreaterThan(0);
}
