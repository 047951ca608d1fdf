import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli, STACK_LINE } from './run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'supply-sync-dry-run-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const INSERT_LINE =
  'INSERT INTO order_lines (no, line_no, item, qty, price) VALUES (:erp_order_number, :line_number, :item_code, :quantity, :unit_price)';

/** A fresh folder with an ERP database (SQLite file) and a config on the embedded sandbox. */
function setup(name: string, insertLine = INSERT_LINE): { dir: string; config: string; state: string } {
  const dir = join(root, name);
  mkdirSync(dir);
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec(`
    CREATE TABLE orders (no TEXT PRIMARY KEY, api_order_id TEXT NOT NULL UNIQUE, customer TEXT);
    CREATE TABLE order_lines (no TEXT, line_no INTEGER, item TEXT, qty NUMERIC, price NUMERIC);
    CREATE TABLE gl (batch_key TEXT, line_no INTEGER, account TEXT, debit NUMERIC, credit NUMERIC);`);
  erp.close();
  const config = join(dir, 'supply-sync.yaml');
  writeFileSync(
    config,
    [
      'api:',
      '  sandbox: embedded',
      'state:',
      '  path: state/state.db',
      'connectors:',
      '  erp:',
      '    type: sql',
      '    connection: { driver: sqlite, file: erp.sqlite }',
      '    statements:',
      '      orders:',
      '        find: SELECT no AS erp_order_number FROM orders WHERE api_order_id = :api_order_id',
      "        insert_header: INSERT INTO orders (no, api_order_id, customer) VALUES ('E-' || :api_order_id, :api_order_id, :customer_number)",
      `        insert_line: ${insertLine}`,
      '  books:',
      '    type: sql',
      '    connection: { driver: sqlite, file: erp.sqlite }',
      '    journal:',
      '      table: gl',
      '      columns: { batch_key: batch_key, line_number: line_no, account: account, debit: debit, credit: credit }',
      'jobs:',
      '  orders:',
      '    flow: orders',
      '    connector: erp',
      '  journal-export:',
      '    flow: journal-export',
      '    connector: books',
      '    options:',
      `      preview_path: ${join(dir, 'preview.json')}`,
      '',
    ].join('\n'),
  );
  return { dir, config, state: join(dir, 'state', 'state.db') };
}

/** The setup's config with the journal export's accounts and branches mapped through the tables given. */
function withMappings(
  config: string,
  tables: { gl: Record<string, string>; br: Record<string, string> },
): void {
  const text = readFileSync(config, 'utf8');
  const options = '    options:\n';
  const mapped = `${options}      mappings: { accounts: gl, branches: br }\n`;
  writeFileSync(config, `${text.replace(options, mapped)}mappings: ${JSON.stringify(tables)}\n`);
}

/** `  <kind> value "<key>" has no entry in mappings.<table> (<n> documents)` lines of a dry run, by table. */
function listedMissing(stdout: string): { table: string; key: string; documents: number }[] {
  const line = /^ {2}\w+ value "([^"]+)" has no entry in mappings\.(\w+) \((\d+) documents?\)$/gm;
  return [...stdout.matchAll(line)].map(([, key = '', table = '', n = '0']) => ({
    table,
    key,
    documents: Number(n),
  }));
}

function erpRows(dir: string): number {
  const erp = new Database(join(dir, 'erp.sqlite'), { readonly: true });
  try {
    const count = (table: string) =>
      (erp.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return count('orders') + count('order_lines') + count('gl');
  } finally {
    erp.close();
  }
}

describe('sync --dry-run changes nothing and tells what a real run would do', () => {
  it(
    'journal-export: creates no state file when there is none, and says it was a dry run',
    { timeout: 90_000 },
    async () => {
      const { dir, config, state } = setup('journal-absent');
      const { code, stdout, stderr } = await runCli([
        'sync',
        'journal-export',
        '--dry-run',
        '--config',
        config,
      ]);
      expect(stderr).not.toMatch(STACK_LINE);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^journal-export: dry run ok \(.*batches_previewed=1/m);
      expect(stdout).toContain(
        'journal-export: dry run: nothing was written and no run was recorded in the state file',
      );
      expect(existsSync(state)).toBe(false);
      expect(existsSync(join(dir, 'preview.json'))).toBe(true);
      expect(erpRows(dir)).toBe(0);
    },
  );

  it(
    'journal-export: records no run in an existing state file, so status shows no success',
    { timeout: 90_000 },
    async () => {
      const { config, state } = setup('journal-existing');
      mkdirSync(join(state, '..'), { recursive: true });
      openStateStore({ file: state, clock: systemClock }).close();
      const { code } = await runCli(['sync', 'journal-export', '--dry-run', '--config', config]);
      expect(code).toBe(0);
      const store = openStateStore({ file: state, clock: systemClock, readOnly: true });
      try {
        expect(store.runs.last('journal-export')).toBeNull();
      } finally {
        store.close();
      }
      const status = await runCli(['status', '--config', config]);
      expect(status.stdout).toMatch(/^journal-export +no runs +.*last success never/m);
    },
  );

  it(
    'journal-export: one dry run lists every missing mapping of every held-back document, so one round clears them',
    { timeout: 90_000 },
    async () => {
      const { config } = setup('journal-unmapped');
      withMappings(config, { gl: { 'no-such-account': 'X' }, br: { 'no-such-branch': '00' } });
      const first = await runCli(['sync', 'journal-export', '--dry-run', '--config', config]);
      expect(first.stderr).not.toMatch(STACK_LINE);
      expect(first.stdout).toMatch(/^journal-export: dry run failed \(.*held_back=[1-9]/m);
      const heldBack = Number(/held_back=(\d+)/.exec(first.stdout)?.[1]);
      const listed = listedMissing(first.stdout);
      const said = `${first.stdout}\n${first.stderr}`;
      // Both tables: a document missing an account is also looked at for its branch.
      expect(new Set(listed.map((missing) => missing.table)), said).toEqual(new Set(['gl', 'br']));
      const distinct = new Set(listed.map((missing) => `${missing.table}:${missing.key}`));
      expect(distinct.size, said).toBe(listed.length);
      for (const missing of listed) {
        expect(missing.documents).toBeGreaterThan(0);
        expect(missing.documents).toBeLessThanOrEqual(heldBack);
      }
      // The list is whole; only the run's recorded error (stderr) keeps to its first few reasons.
      const printed = first.stdout.split('\n').filter((text) => !text.startsWith('{'));
      expect(printed.join('\n')).not.toMatch(/more reasons/);
      expect(first.stdout).toContain(
        `journal-export: dry run: documents held back, for each reason (${listed.length}):`,
      );

      const filled = (table: string) =>
        Object.fromEntries(listed.filter((m) => m.table === table).map((m) => [m.key, '100']));
      withMappings(setup('journal-mapped').config, { gl: filled('gl'), br: filled('br') });
      const second = await runCli([
        'sync',
        'journal-export',
        '--dry-run',
        '--config',
        join(root, 'journal-mapped', 'supply-sync.yaml'),
      ]);
      expect(second.stdout, `${second.stdout}\n${second.stderr}`).toMatch(
        /^journal-export: dry run ok \(.*dead_letters_previewed=0/m,
      );
      expect(second.code).toBe(0);
    },
  );

  it(
    'orders: a misspelled :unit_pricee makes every order a would-be dead letter, named with key and did-you-mean',
    { timeout: 90_000 },
    async () => {
      const { dir, config, state } = setup(
        'orders-misspelled',
        INSERT_LINE.replace(':unit_price)', ':unit_pricee)'),
      );
      const { code, stdout, stderr } = await runCli(['sync', 'orders', '--dry-run', '--config', config]);
      expect(stdout).not.toMatch(/would_write=/);
      // Every order would be held back and none delivered: by the outcome rule the dry run ends failed.
      expect(stdout).toMatch(/^orders: dry run failed \(.*would_dead_letter=[1-9]/m);
      expect(stderr).toMatch(/would become dead letters: order PO-\S+ \(ord_\w+\): /);
      expect(stderr).toContain(
        'statement orders.insert_line: parameter :unit_pricee has no value; did you mean :unit_price?',
      );
      expect(code).not.toBe(0);
      expect(existsSync(state)).toBe(false);
      expect(erpRows(dir)).toBe(0);
    },
  );

  it(
    'orders: with correct statements, binds every write without executing it',
    { timeout: 90_000 },
    async () => {
      const { dir, config, state } = setup('orders-good');
      const { code, stdout } = await runCli(['sync', 'orders', '--dry-run', '--config', config]);
      expect(stdout).toMatch(/^orders: dry run ok \(.*would_write=[1-9]/m);
      expect(stdout).not.toMatch(/would_dead_letter=/);
      expect(code).toBe(0);
      expect(existsSync(state)).toBe(false);
      expect(erpRows(dir)).toBe(0);
    },
  );
});
