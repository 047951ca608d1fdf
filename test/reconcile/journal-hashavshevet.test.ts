/**
 * reconcile journal against Hashavshevet import files the real export wrote, read back with the reader written
 * from the published PRM table: a clean run matches; a record's amounts edited by hand, a record deleted and a
 * file imported twice (left in the import folder and copied to done/) are each named; a hand edit that leaves a
 * record unbalanced stops it with exit 2, naming the file.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublishedDoc, parsePublishedPrm } from '../../connectors/hashavshevet/published-reader.js';
import { exportedBooks, jsonReport, reconcileCli, scopes, snapshot, type Books } from './books.js';

let books: Books;
let folder: string;

beforeAll(async () => {
  books = await exportedBooks((dir) => ({
    type: 'hashavshevet',
    import_dir: join(dir, 'imports'),
    long_references: 'last_digits',
  }));
  folder = join(books.dir, 'imports');
}, 120_000);
afterAll(async () => {
  await (books as Books | undefined)?.close();
});

const dataFiles = () =>
  readdirSync(folder)
    .filter((name) => name.endsWith('.DOC'))
    .sort();

function records(name: string): Buffer[] {
  const bytes = readFileSync(join(folder, name));
  const out: Buffer[] = [];
  for (let start = 0; start < bytes.length;) {
    const end = bytes.indexOf('\r\n', start);
    out.push(Buffer.from(bytes.subarray(start, end)));
    start = end + 2;
  }
  return out;
}

const writeRecords = (name: string, list: readonly Buffer[]) =>
  writeFileSync(join(folder, name), Buffer.concat(list.flatMap((r) => [r, Buffer.from('\r\n')])));

/** Positions of a PRM line's field (1-based, inclusive) in this file's records. */
function position(name: string, line: number): { start: number; end: number } {
  const layout = parsePublishedPrm(readFileSync(join(folder, name.replace(/\.DOC$/, '.PRM'))));
  const at = layout.positions.get(line);
  if (at === undefined) throw new Error(`PRM line ${line} is not in ${name}`);
  return at;
}

function put(record: Buffer, at: { start: number; end: number }, text: string): void {
  record.write(text.padStart(at.end - at.start + 1), at.start - 1, 'latin1');
}

describe('reconcile journal on Hashavshevet import files', () => {
  it('matches a clean export with zero differences, through the CLI too', { timeout: 60_000 }, async () => {
    const { period, from, to } = scopes(books);
    expect((await books.reconcile({ period })).differences).toEqual([]);
    const all = await books.reconcile({ from, to });
    expect(all.differences).toEqual([]);
    expect(all.counts['api_lines_exported']).toBe(books.exported.length);
    const cli = await reconcileCli(books, ['journal', '--from', from, '--to', to, '--json']);
    expect(cli.code).toBe(0);
    expect(jsonReport(cli).outcome).toBe('match');
  });

  it(
    'names a record edited by hand, a record deleted and a file imported twice',
    { timeout: 60_000 },
    async () => {
      const { from, to } = scopes(books);
      const [first = '', second = '', third = ''] = dataFiles();
      const layoutFile = first.replace(/\.DOC$/, '.PRM');
      const movements = parsePublishedDoc(
        readFileSync(join(folder, first)),
        parsePublishedPrm(readFileSync(join(folder, layoutFile))),
      );
      const index = movements.findIndex((m) => m.debits.length === 1 && m.credits.length === 1);
      const edited = movements[index];
      if (edited === undefined) throw new Error('no movement with one debit and one credit account');
      const list = records(first);
      const record = list[index] as Buffer;
      put(record, position(first, 14), '1.00');
      put(record, position(first, 16), '1.00');
      writeRecords(first, list);

      const removed = parsePublishedDoc(
        readFileSync(join(folder, second)),
        parsePublishedPrm(readFileSync(join(folder, second.replace(/\.DOC$/, '.PRM')))),
      )[0];
      writeRecords(second, records(second).slice(1));

      mkdirSync(join(folder, 'done'), { recursive: true });
      copyFileSync(join(folder, third), join(folder, 'done', third));
      copyFileSync(
        join(folder, third.replace(/\.DOC$/, '.PRM')),
        join(folder, 'done', third.replace(/\.DOC$/, '.PRM')),
      );

      const before = await snapshot(books, folder);
      const report = await books.reconcile({ from, to });
      const found = report.differences.map((d) => `${d.kind} ${d.document} ${d.side} ${d.account}`);
      const reference = edited.reference1;
      expect(found).toContain(`amount_differs ${reference} debit ${edited.debits[0]?.account}`);
      expect(found).toContain(`amount_differs ${reference} credit ${edited.credits[0]?.account}`);
      const removedDocument = found.filter((f) => f.split(' ')[1] === removed?.reference1);
      expect(removedDocument.length).toBeGreaterThan(0);
      expect(removedDocument.every((f) => /^(missing_in_books|amount_differs) /.test(f))).toBe(true);
      const twice = report.differences.filter((d) => d.kind === 'present_twice');
      expect(twice.length).toBeGreaterThan(0);
      expect(
        twice.every(
          (d) =>
            d.where.some((w) => w.startsWith(`done/${third}`)) && d.where.some((w) => w.startsWith(third)),
        ),
      ).toBe(true);
      expect(await snapshot(books, folder)).toBe(before);
    },
  );

  it('stops with exit 2 on a file the importer would misread, naming it', { timeout: 30_000 }, async () => {
    const [name = ''] = dataFiles();
    const list = records(name);
    put(list[0] as Buffer, position(name, 14), '2.00'); // the debit alone: the record no longer balances
    writeRecords(name, list);
    const out = join(books.dir, 'never.csv');
    const cli = await reconcileCli(books, ['journal', '--period', scopes(books).period, '--out', out]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`${name} cannot be read as an import file: DOC record 1 does not balance`);
    expect(readdirSync(books.dir)).not.toContain('never.csv');
  });
});
