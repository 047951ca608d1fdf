/**
 * The buyer daemon's expenses job in the whole-daemon crash scenario: a back office drops CSV files of expense
 * lines (some with a scanned receipt) into the csv-expenses folder while the daemon is killed and restarted. Each
 * expense must reach the API exactly once, with its receipt, and be written back into the folder's sent ledger once
 * with the API's id; each finished file must be moved to done/.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseCsv } from '../../../src/kit/csv.js';
import type { Prng } from './prng.js';
import type { CrashWorld } from './world.js';

const DROP_DIR = 'expenses-drop';
const LEDGER = '.expenses-sent.csv';
const MAX_UNSENT = 40;
const HEADER =
  'reference,vendor,doc_type,doc_date,branch,doc_number,category,amount_before_vat,vat_amount,description,attachment';

export const EXPENSES_CONFIG = {
  connector: ['  receipts:', '    type: csv-expenses', `    in_dir: ${DROP_DIR}`, '    min_age: 0'],
  job: ['  expenses:', '    flow: expenses', '    connector: receipts', "    schedule: '* * * * *'"],
  mappings: [
    'mappings:',
    '  vendors: { ven_electric: ELEC, ven_cleaning: BRIK }',
    '  expense_categories: { cat_utilities: UTIL, cat_cleaning: CLEAN }',
    '  branches: { br_tlv: TLV01, br_hrz: HRZ02 }',
  ],
};

interface StoredExpense {
  id: string;
  external_ref: string | null;
  files: unknown[];
}

export class ExpenseDrops {
  readonly #dir: string;
  readonly #refs: string[] = [];
  readonly #withReceipt = new Set<string>();
  readonly #files: string[] = [];

  constructor(private readonly world: CrashWorld) {
    this.#dir = path.join(world.dir, DROP_DIR);
    // The folder is there before the daemon's first run, as deploy.md has it: a missing one fails the run.
    mkdirSync(this.#dir, { recursive: true });
  }

  /**
   * One file of 1 to 3 expenses, written under a dot-name and renamed into place; nothing while MAX_UNSENT are not
   * written back yet. Kills cut most runs short, so an unbounded folder grows faster than it is worked through and
   * the convergence becomes a long send at the API's rate limit, which tests nothing the kills did not.
   */
  async drop(prng: Prng): Promise<void> {
    if (this.#refs.length - this.#ledger().size >= MAX_UNSENT) return;
    await mkdir(this.#dir, { recursive: true });
    const rows: string[] = [HEADER];
    for (let n = prng.int(1, 3); n > 0; n -= 1) {
      const ref = `EXP-${String(this.#refs.length + 1).padStart(5, '0')}`;
      this.#refs.push(ref);
      let receipt = '';
      if (prng.next() < 0.5) {
        receipt = `${ref}.pdf`;
        await writeFile(path.join(this.#dir, receipt), `scan of ${ref}`);
        this.#withReceipt.add(ref);
      }
      const [vendor, category, docType] =
        receipt === '' ? ['BRIK', 'CLEAN', 'none'] : ['ELEC', 'UTIL', 'receipt'];
      const branch = prng.pick(['TLV01', 'HRZ02']);
      for (let line = prng.int(1, 2); line > 0; line -= 1) {
        rows.push(
          `${ref},${vendor},${docType},2026-11-20,${branch},${ref},${category},` +
            `${prng.int(5, 900)}.${prng.int(10, 99)},,line ${line},${receipt}`,
        );
      }
    }
    const name = `${String(this.#files.length + 1).padStart(5, '0')}-expenses.csv`;
    this.#files.push(name);
    await writeFile(path.join(this.#dir, `.${name}`), `${rows.join('\r\n')}\r\n`);
    await rename(path.join(this.#dir, `.${name}`), path.join(this.#dir, name));
  }

  /** API expense id per reference, per complete line of the sent ledger (a reference may appear twice: a fault). */
  #ledger(): Map<string, string[]> {
    const file = path.join(this.#dir, LEDGER);
    const sent = new Map<string, string[]>();
    if (!existsSync(file)) return sent;
    for (const row of parseCsv(readFileSync(file, 'utf8'), ',').slice(1)) {
      const [ref, id, , at] = row;
      if (row.length === 4 && ref && id && at) sent.set(ref, [...(sent.get(ref) ?? []), id]);
    }
    return sent;
  }

  async #stored(): Promise<Map<string, StoredExpense[]>> {
    const state = await this.world.sandbox.control.state();
    const byRef = new Map<string, StoredExpense[]>();
    for (const expense of Object.values(state['expenses'] as Record<string, StoredExpense>)) {
      const ref = expense.external_ref ?? '';
      if (ref.startsWith('EXP-')) byRef.set(ref, [...(byRef.get(ref) ?? []), expense]);
    }
    return byRef;
  }

  async missing(): Promise<string[]> {
    const ledger = this.#ledger();
    const pendingFiles = existsSync(this.#dir)
      ? readdirSync(this.#dir).filter((n) => /^\d.*\.csv$/.test(n))
      : [];
    return [
      ...this.#refs.filter((ref) => !ledger.has(ref)).map((ref) => `expense ${ref} not written back`),
      ...pendingFiles.map((name) => `expenses file ${name} not moved to done/`),
    ];
  }

  async progress(): Promise<Record<string, number>> {
    return { expensesDropped: this.#refs.length, expensesSent: this.#ledger().size };
  }

  async violations(): Promise<string[]> {
    const stored = await this.#stored();
    const ledger = this.#ledger();
    const out: string[] = [];
    for (const ref of this.#refs) {
      const held = stored.get(ref) ?? [];
      const ids = ledger.get(ref) ?? [];
      if (held.length !== 1) out.push(`expense ${ref} held ${held.length} times by the API`);
      if (ids.length !== 1 || ids[0] !== held[0]?.id)
        out.push(`expense ${ref} written back as [${ids.join(', ')}], held as ${held[0]?.id ?? 'nothing'}`);
      const files = this.#withReceipt.has(ref) ? 1 : 0;
      if (held[0] !== undefined && held[0].files.length !== files)
        out.push(`expense ${ref} has ${held[0].files.length} files, expected ${files}`);
    }
    for (const ref of stored.keys())
      if (!this.#refs.includes(ref)) out.push(`expense ${ref} was never dropped`);
    const done = existsSync(path.join(this.#dir, 'done')) ? readdirSync(path.join(this.#dir, 'done')) : [];
    for (const name of this.#files) if (!done.includes(name)) out.push(`expenses file ${name} not in done/`);
    if (existsSync(path.join(this.#dir, 'failed'))) out.push('an expenses file was refused (see failed/)');
    return out;
  }
}
