/** Reads what reached the accounting targets, independently of the writers' code. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { amountAgorot, readLayout, readRecords } from '../../connectors/hashavshevet/prm-reader.js';

export interface FileTotals {
  files: string[];
  debit: bigint;
  credit: bigint;
  /** Records whose own debit and credit differ (must be none). */
  unbalancedRecords: number;
}

/** Every data file in the import folder and its done/ subfolder, read through its PRM layout. */
export function hashavshevetTotals(importDir: string): FileTotals {
  const totals: FileTotals = { files: [], debit: 0n, credit: 0n, unbalancedRecords: 0 };
  for (const folder of [importDir, join(importDir, 'done')]) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.DOC')).sort()) {
      totals.files.push(name);
      const layout = readLayout(join(folder, name.replace(/\.DOC$/, '.PRM')));
      for (const record of readRecords(join(folder, name), layout)) {
        const get = (f: Parameters<typeof record.fields.get>[0]) => amountAgorot(record.fields.get(f) ?? '');
        const debit = get('debit_amount_1') + get('debit_amount_2');
        const credit = get('credit_amount_1') + get('credit_amount_2');
        if (debit !== credit) totals.unbalancedRecords += 1;
        totals.debit += debit;
        totals.credit += credit;
      }
    }
  }
  return totals;
}

export interface AmountLine {
  side: string;
  amount: string;
  document_type: string;
}

/** What the debit side of the target must total for these lines (VAT is a debit except on credit notes). */
export function expectedDebit(lines: readonly AmountLine[]): bigint {
  let total = 0n;
  for (const line of lines) {
    const agorot = BigInt(line.amount.replace('.', ''));
    const isDebit = line.side === 'debit' || (line.side === 'vat' && line.document_type !== 'credit_note');
    if (isDebit) total += agorot;
  }
  return total;
}

/** Totals per batch key (from the file name); a key found twice (folder and done/) throws. */
export function hashavshevetTotalsByFile(importDir: string): Map<string, FileTotals> {
  const byKey = new Map<string, FileTotals>();
  for (const folder of [importDir, join(importDir, 'done')]) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.DOC'))) {
      const key = name.replace(/^MOVEIN-|\.DOC$/g, '');
      if (byKey.has(key)) throw new Error(`batch ${key} was written twice`);
      const totals: FileTotals = { files: [name], debit: 0n, credit: 0n, unbalancedRecords: 0 };
      const layout = readLayout(join(folder, name.replace(/\.DOC$/, '.PRM')));
      for (const record of readRecords(join(folder, name), layout)) {
        const get = (f: Parameters<typeof record.fields.get>[0]) => amountAgorot(record.fields.get(f) ?? '');
        const debit = get('debit_amount_1') + get('debit_amount_2');
        const credit = get('credit_amount_1') + get('credit_amount_2');
        if (debit !== credit) totals.unbalancedRecords += 1;
        totals.debit += debit;
        totals.credit += credit;
      }
      byKey.set(key, totals);
    }
  }
  return byKey;
}
