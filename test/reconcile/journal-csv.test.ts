/**
 * reconcile journal against CSV books the real export wrote: a clean run matches; then a row deleted, an amount
 * and an account changed by hand, a file imported twice and an entry nobody exported are each named, through the
 * CLI, with exit 1, --json and a --out CSV read by Python's csv module. It never writes to the books or the API.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openReadOnlyApi } from '../../src/cli/reconcile/open.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exportedBooks,
  jsonReport,
  pythonCsvRows,
  reconcileCli,
  scopes,
  snapshot,
  type Books,
} from './books.js';

let books: Books;
let folder: string;

beforeAll(async () => {
  books = await exportedBooks((dir) => ({ type: 'csv', output_dir: join(dir, 'books') }));
  folder = join(books.dir, 'books');
}, 120_000);
afterAll(async () => {
  await (books as Books | undefined)?.close();
});

const files = () =>
  readdirSync(folder)
    .filter((name) => name.endsWith('.csv'))
    .sort();
/** Rows of a books file without its header, and a way to write them back. */
const rowsOf = (name: string) =>
  readFileSync(join(folder, name), 'utf8')
    .split('\r\n')
    .filter((row) => row !== '');
const writeRows = (name: string, rows: readonly string[]) =>
  writeFileSync(join(folder, name), `${rows.join('\r\n')}\r\n`);
/** Default columns: batch, line, date, value_date, reference, reference2, movement_type, account, counter_account, debit, credit, branch, description. */
const ACCOUNT = 7;
const DEBIT = 9;

describe('reconcile journal on CSV books', () => {
  it(
    'matches a clean export: exit 0, zero differences, for a period and a range of dates',
    { timeout: 60_000 },
    async () => {
      const { period, from, to } = scopes(books);
      const byPeriod = await books.reconcile({ period });
      expect(byPeriod.differences).toEqual([]);
      expect(byPeriod.counts['matched']).toBeGreaterThan(0);
      const all = await books.reconcile({ from, to });
      expect(all.differences).toEqual([]);
      expect(all.counts['api_lines_exported']).toBe(books.exported.length);
      const cli = await reconcileCli(books, ['journal', '--from', from, '--to', to]);
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
      expect(cli.stdout).toContain('everything matches: no differences');
      expect(cli.stdout).not.toContain(books.sandbox.keys.buyer);
    },
  );

  it('holds an API client that stops a write before it is sent', { timeout: 30_000 }, async () => {
    const before = await snapshot(books, folder);
    const access = await openReadOnlyApi(books.loaded.config, 'buyer');
    try {
      const [line] = books.exported;
      await expect(
        access.api.accounting.exportJournalLines(
          { journal_line_ids: [line?.id ?? ''], target: 'books' },
          { idempotencyKey: 'reconcile-write-attempt' },
        ),
      ).rejects.toThrow(
        /^reconcile reads only: a request that changes data was stopped: POST \/accounting\/\S+ was not sent$/,
      );
    } finally {
      await access.close();
    }
    expect(await snapshot(books, folder)).toBe(before);
  });

  it(
    'names each difference made by hand, exits 1, and writes them as CSV; books and API untouched',
    { timeout: 60_000 },
    async () => {
      const { from, to } = scopes(books);
      const [first = '', second = '', third = ''] = files();
      const deleted = rowsOf(first)[1]?.split(',') ?? [];
      writeRows(
        first,
        rowsOf(first).filter((_, i) => i !== 1),
      );
      const edited = rowsOf(second);
      const amountRow = (edited[1] ?? '').split(',');
      const debitIndex = edited.findIndex((row, i) => i > 1 && row.split(',')[DEBIT] !== '0.00');
      const accountRow = (edited[debitIndex] ?? '').split(',');
      const original = amountRow[DEBIT] === '0.00' ? amountRow[DEBIT + 1] : amountRow[DEBIT];
      amountRow[amountRow[DEBIT] === '0.00' ? DEBIT + 1 : DEBIT] = '1.23';
      accountRow[ACCOUNT] = '9999';
      edited[1] = amountRow.join(',');
      edited[debitIndex] = accountRow.join(',');
      writeRows(second, edited);
      mkdirSync(join(folder, 'done'), { recursive: true });
      cpSync(join(folder, third), join(folder, 'done', third));
      const extra = [...(rowsOf(third)[1]?.split(',') ?? [])];
      extra[4] = 'MANUAL-1';
      writeRows('journal-manual.csv', [rowsOf(third)[0] ?? '', extra.join(',')]);

      const before = await snapshot(books, books.dir);
      const out = join(books.dir, 'differences.csv');
      const cli = await reconcileCli(books, ['journal', '--from', from, '--to', to, '--json', '--out', out]);
      expect(cli.code).toBe(1);
      expect(cli.stderr).toMatch(/difference\(s\) found \(differences_found\)/);
      const report = jsonReport(cli);
      expect(report.outcome).toBe('differences');
      const kinds = report.differences.map((d) => `${d.kind} ${d.document} ${d.account}`);
      expect(kinds).toContain(`missing_in_books ${deleted[4]} ${deleted[ACCOUNT]}`);
      expect(kinds).toContain(`amount_differs ${amountRow[4]} ${amountRow[ACCOUNT]}`);
      expect(report.differences.find((d) => d.kind === 'amount_differs')).toMatchObject({
        apiValue: original,
        booksValue: '1.23',
      });
      expect(kinds.some((k) => k.startsWith('account_differs') && k.endsWith('-> 9999'))).toBe(true);
      expect(kinds.filter((k) => k.startsWith('present_twice')).length).toBeGreaterThan(0);
      expect(kinds.some((k) => k.startsWith('not_exported_by_api MANUAL-1'))).toBe(true);
      expect(
        report.differences.find((d) => d.kind === 'present_twice')?.where.some((w) => w.startsWith('done/')),
      ).toBe(true);

      const rows = pythonCsvRows(out);
      expect(rows[0]).toEqual([
        'kind',
        'document',
        'side',
        'account',
        'api_value',
        'books_value',
        'api_ids',
        'batch_ids',
        'where',
        'detail',
        'action',
      ]);
      expect(rows.slice(1).map((row) => `${row[0]} ${row[1]} ${row[3]}`)).toEqual(kinds);
      // Reading changed nothing: no file in the books (the --out file aside) and nothing in the API.
      const after = (await snapshot(books, books.dir)).replace(/"[^"]*differences\.csv [0-9a-f]+",?/, '');
      expect(after).toBe(before);
    },
  );

  it('names the differences in words a person acts on', { timeout: 30_000 }, async () => {
    const { from, to } = scopes(books);
    const cli = await reconcileCli(books, ['journal', '--from', from, '--to', to]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/^matches:$/m);
    expect(cli.stdout).toMatch(
      /^\d+\. missing_in_books: document \S+ \w+ \S+: 1 exported line\(s\) not found in the books$/m,
    );
    expect(cli.stdout).toMatch(/what to do: the books hold this more than once/);
  });

  it('refuses bad input with exit 2 and writes nothing', { timeout: 60_000 }, async () => {
    const out = join(books.dir, 'refused.csv');
    const badPeriod = await reconcileCli(books, ['journal', '--period', '2026-13', '--out', out]);
    expect(badPeriod.code).toBe(2);
    expect(badPeriod.stderr).toContain('--period "2026-13" is not an accounting period YYYY-MM');
    const unreadable = join(folder, 'journal-unreadable.csv');
    mkdirSync(unreadable);
    const file = await reconcileCli(books, ['journal', '--period', '2026-03', '--out', out]);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(
      /reconcile could not run: .*journal-unreadable\.csv cannot be read \(EISDIR\)/,
    );
    renameSync(folder, `${folder}.moved`);
    const missing = await reconcileCli(books, ['journal', '--period', '2026-03', '--out', out]);
    renameSync(`${folder}.moved`, folder);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`the output folder ${folder} cannot be read (ENOENT)`);
    expect(existsSync(out)).toBe(false);
  });
});
