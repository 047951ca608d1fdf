/**
 * The csv-expenses drop folder: rows grouped into expenses by the reference column, receipts resolved in the
 * folder, half-written files left alone, each sent expense written back once and finished files moved to done/.
 * The CSV reader is checked against Python's csv module, a reader we did not write.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CsvExpenseSource,
  csvExpensesConfigSchema,
  expenseFolders,
  parseExpenseFile,
  SENT_LEDGER,
} from '../../../connectors/csv-expenses/index.js';
import { parseCsv } from '../../../src/kit/csv.js';

const HEADER =
  'reference,vendor,doc_type,doc_date,branch,doc_number,category,amount_before_vat,vat_amount,description,attachment';
const COLUMNS = { reference: 'reference', attachment: 'attachment' };

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<{ dir: string; source: CsvExpenseSource; clock: { now: number } }> {
  const dir = await mkdtemp(join(tmpdir(), 'csv-expenses-'));
  dirs.push(dir);
  const config = csvExpensesConfigSchema.parse({ in_dir: '.', min_age: 60_000 });
  const clock = { now: Date.now() + 120_000 };
  return { dir, source: new CsvExpenseSource(config, expenseFolders(config, dir), () => clock.now), clock };
}

describe('expense file parsing', () => {
  it('groups rows by reference into expenses with numbered lines', () => {
    const parsed = parseExpenseFile(
      [
        HEADER,
        'R1,ELEC,tax_invoice,2026-11-20,TLV01,INV-1,UTIL,100.00,18.00,"Power, November",r1.pdf',
        'R2,BRIK,receipt,2026-11-21,HRZ02,,CLEAN,50,,,',
        'R1,ELEC,tax_invoice,2026-11-20,TLV01,INV-1,CLEAN,20.00,3.60,Soap,r1.pdf',
      ].join('\r\n'),
      ',',
      COLUMNS,
    );
    expect(parsed.map((p) => [p.expense.ref, p.attachment, p.expense.lines.length])).toEqual([
      ['R1', 'r1.pdf', 2],
      ['R2', null, 1],
    ]);
    expect(parsed[0]?.expense.lines[0]).toMatchObject({
      lineNumber: 1,
      category: 'UTIL',
      description: 'Power, November',
    });
    expect(parsed[0]?.expense.lines[1]).toMatchObject({
      lineNumber: 2,
      category: 'CLEAN',
      vatAmount: '3.60',
    });
    expect(parsed[0]?.expense).toMatchObject({ docNumber: 'INV-1', totals: null, vatMode: 'with_vat' });
  });

  it('names the lines at fault: a missing column, a bad amount, rows of one expense that disagree, a path', () => {
    expect(() => parseExpenseFile('reference,vendor\nR1,ELEC', ',', COLUMNS)).toThrow(
      /the header has no column\(s\) doc_type, doc_date, branch, category, amount_before_vat/,
    );
    expect(() =>
      parseExpenseFile(
        [
          HEADER,
          'R1,ELEC,receipt,2026-11-20,TLV01,,UTIL,ten,,,',
          'R2,ELEC,receipt,2026-11-20,TLV01,,UTIL,1,,,',
          'R2,ELEC,receipt,2026-11-21,TLV01,,UTIL,1,,,',
          'R3,ELEC,receipt,2026-11-20,TLV01,,UTIL,1,,,../etc/passwd',
        ].join('\n'),
        ',',
        COLUMNS,
      ),
    ).toThrow(
      /line 2: amount_before_vat "ten" is not a number like 250.00; line 4: doc_date differ from line 3 of expense R2; line 5: attachment "..\/etc\/passwd" must be a file name/,
    );
  });
});

describe('the CSV reader against Python csv', () => {
  const python = (() => {
    try {
      execFileSync('python3', ['-c', 'import csv, json'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  const required = process.env['SUPPLY_SYNC_REQUIRE_SERVICES'] === '1';

  it.skipIf(!python && !required)(
    'reads quoted separators, doubled quotes, line breaks in fields and Hebrew as Python does (skipped without python3)',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'csv-oracle-'));
      dirs.push(dir);
      const text = [
        HEADER,
        'R1,ELEC,receipt,2026-11-20,TLV01,,UTIL,1.00,,"a ""quoted"" word",',
        'R1,ELEC,receipt,2026-11-20,TLV01,,UTIL,2.00,,"two\r\nlines, and a comma",',
        'R2,חשמל,receipt,2026-11-20,TLV01,,UTIL,3.00,,ניקיון,קבלה.pdf',
        'R3,ELEC,receipt,2026-11-20,TLV01,,UTIL,4.00,,"",',
        '',
      ].join('\r\n');
      const file = join(dir, 'oracle.csv');
      await writeFile(file, text, 'utf8');
      const script =
        'import csv, json, sys\n' +
        'with open(sys.argv[1], newline="", encoding="utf-8") as f:\n' +
        '    print(json.dumps([row for row in csv.reader(f) if row]))\n';
      const expected = JSON.parse(
        execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }),
      ) as string[][];
      expect(parseCsv(text, ',')).toEqual(expected);
    },
  );
});

describe('the drop folder', () => {
  it('leaves half-written files alone: dot-files, .part files and files younger than min_age', async () => {
    const { dir, source, clock } = await folder();
    const row = 'R1,ELEC,receipt,2026-11-20,TLV01,,UTIL,1.00,,,';
    await writeFile(join(dir, '.incoming.csv'), `${HEADER}\n${row}\n`);
    await writeFile(join(dir, 'incoming.csv.part'), `${HEADER}\n${row}\n`);
    await writeFile(join(dir, 'young.csv'), `${HEADER}\n${row}\n`);
    const now = Date.now();
    await utimes(join(dir, 'young.csv'), now / 1000, now / 1000);
    clock.now = now + 1_000;
    expect(await source.listPendingExpenses()).toEqual([]);
    clock.now = now + 61_000;
    expect((await source.listPendingExpenses()).map((e) => e.ref)).toEqual(['R1']);
  });

  it('writes each sent expense back once and moves a finished file and its receipt to done/', async () => {
    const { dir, source } = await folder();
    await writeFile(join(dir, 'r1.pdf'), 'receipt');
    await writeFile(
      join(dir, 'batch.csv'),
      [
        HEADER,
        'R1,ELEC,receipt,2026-11-20,TLV01,,UTIL,1.00,,,r1.pdf',
        'R2,ELEC,receipt,2026-11-20,TLV01,,UTIL,2.00,,,',
      ].join('\n'),
    );
    const pending = await source.listPendingExpenses();
    expect(pending.map((e) => [e.ref, e.attachmentPaths])).toEqual([
      ['R1', [join(dir, 'r1.pdf')]],
      ['R2', []],
    ]);
    await source.markExpenseSent('R1', 'exp_1');
    await source.markExpenseSent('R1', 'exp_1');
    expect(existsSync(join(dir, 'batch.csv'))).toBe(true);
    expect((await source.listPendingExpenses()).map((e) => e.ref)).toEqual(['R2']);
    await source.markExpenseSent('R2', 'exp_2');
    expect((await readdir(join(dir, 'done'))).sort()).toEqual(['batch.csv', 'r1.pdf']);
    const ledger = parseCsv(await readFile(join(dir, SENT_LEDGER), 'utf8'), ',');
    expect(ledger.map((row) => row.slice(0, 3))).toEqual([
      ['reference', 'api_expense_id', 'file'],
      ['R1', 'exp_1', 'batch.csv'],
      ['R2', 'exp_2', 'batch.csv'],
    ]);
  });

  it('finishes a file whose expenses were all written back before a crash, and ignores a torn ledger line', async () => {
    const { dir, source } = await folder();
    await writeFile(join(dir, 'a.csv'), `${HEADER}\nR1,ELEC,receipt,2026-11-20,TLV01,,UTIL,1.00,,,\n`);
    await writeFile(
      join(dir, SENT_LEDGER),
      'reference,api_expense_id,file,sent_at\r\nR1,exp_1,a.csv,2026-11-20T00:00:00.000Z\r\nR9,exp_',
    );
    expect(await source.listPendingExpenses()).toEqual([]);
    expect(await readdir(join(dir, 'done'))).toEqual(['a.csv']);
    await writeFile(
      join(dir, 'b.csv'),
      `${HEADER}\nR8,ELEC,receipt,2026-11-20,TLV01,,UTIL,1.00,,,\nR9,ELEC,receipt,2026-11-20,TLV01,,UTIL,1.00,,,\n`,
    );
    expect((await source.listPendingExpenses()).map((e) => e.ref)).toEqual(['R8', 'R9']);
    // The torn line is closed by the next append, and still does not count.
    await source.markExpenseSent('R8', 'exp_8');
    expect((await source.listPendingExpenses()).map((e) => e.ref)).toEqual(['R9']);
    await source.markExpenseSent('R9', 'exp_9');
    const ledger = parseCsv(await readFile(join(dir, SENT_LEDGER), 'utf8'), ',');
    expect(ledger.filter((row) => row[0] === 'R9').map((row) => row[1])).toEqual(['exp_', 'exp_9']);
    expect((await readdir(join(dir, 'done'))).sort()).toEqual(['a.csv', 'b.csv']);
  });

  it('matches the configured reference and attachment columns without regard to case', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'csv-expenses-'));
    dirs.push(dir);
    const config = csvExpensesConfigSchema.parse({
      in_dir: '.',
      min_age: 0,
      reference_column: 'Voucher',
      attachment_column: 'Scan',
    });
    await writeFile(join(dir, 'v.pdf'), 'scan');
    await writeFile(
      join(dir, 'x.csv'),
      'VOUCHER,Vendor,Doc_Type,Doc_Date,Branch,Category,Amount_Before_Vat,SCAN\nV-1,ELEC,receipt,2026-11-20,TLV01,UTIL,1.00,v.pdf\n',
    );
    const pending = await new CsvExpenseSource(config, expenseFolders(config, dir)).listPendingExpenses();
    expect(pending.map((e) => [e.ref, e.attachmentPaths])).toEqual([['V-1', [join(dir, 'v.pdf')]]]);
  });

  it('moves an unreadable file to failed/ with the reason beside it', async () => {
    const { dir, source } = await folder();
    await writeFile(join(dir, 'bad.csv'), 'reference,vendor\nR1,ELEC\n');
    expect(await source.listPendingExpenses()).toEqual([]);
    expect(await readFile(join(dir, 'failed', 'bad.csv.error.txt'), 'utf8')).toMatch(
      /the header has no column/,
    );
  });

  it('rejects a windows-1255 file read as UTF-8, and fails on a folder that is not there', async () => {
    const { dir } = await folder();
    const config = csvExpensesConfigSchema.parse({ in_dir: '.', min_age: 0 });
    const origin = { connector: 'receipts', configFile: '/etc/supply-sync/buyer.yaml' };
    const source = new CsvExpenseSource(config, expenseFolders(config, dir, origin));
    const row = 'R1,ELEC,none,2026-11-20,TLV01,R1,UTIL,100.00,17.00,חשמל,';
    await writeFile(join(dir, 'heb.csv'), iconv.encode(`${HEADER}\n${row}\n`, 'windows-1255'));
    expect(await source.listPendingExpenses()).toEqual([]);
    expect(await readFile(join(dir, 'failed', 'heb.csv.error.txt'), 'utf8')).toContain(
      'line 2 is not UTF-8 text, which /etc/supply-sync/buyer.yaml: connectors.receipts.encoding says',
    );

    const gone = new CsvExpenseSource(config, expenseFolders({ ...config, in_dir: 'expense' }, dir, origin));
    await expect(gone.listPendingExpenses()).rejects.toThrow(
      `/etc/supply-sync/buyer.yaml: connectors.receipts.in_dir: the drop folder ${join(dir, 'expense')} does not exist`,
    );
  });
});
