/**
 * reconcile journal against Hashavshevet import files the real export wrote, read back with the reader written
 * from the published PRM table: a clean run matches; a record's amounts edited by hand, a record deleted and a
 * file imported twice (left in the import folder and copied to done/) are each named by the document's own number
 * (the invoice, not the digits the file keeps) and the file's record number; a hand edit that leaves a record
 * unbalanced is a difference of its own (exit 1, naming the document and the record), not an abort.
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

/** The API's document number whose reference the file keeps as `digits` (long_references: last_digits). */
function documentOf(digits: string): string {
  const numbers = new Set(
    books.exported.map((line) => (line as unknown as { document_number: string }).document_number),
  );
  const found = [...numbers].filter((number) => number.replace(/\D/g, '').slice(-9) === digits);
  expect(found).toHaveLength(1);
  return found[0] ?? '';
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
      const invoice = documentOf(edited.reference1);
      expect(invoice).not.toBe(edited.reference1);
      expect(found).toContain(`amount_differs ${invoice} debit ${edited.debits[0]?.account}`);
      expect(found).toContain(`amount_differs ${invoice} credit ${edited.credits[0]?.account}`);
      const changed = report.differences.find((d) => d.document === invoice && d.side === 'debit');
      expect(changed?.where).toEqual([`${first} record ${index + 1}`]);
      const removedDocument = found.filter((f) => f.split(' ')[1] === documentOf(removed?.reference1 ?? ''));
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

  it(
    'names a record edited so it no longer balances as a difference of its own, exit 1',
    { timeout: 30_000 },
    async () => {
      const [name = ''] = dataFiles();
      const list = records(name);
      const layout = parsePublishedPrm(readFileSync(join(folder, name.replace(/\.DOC$/, '.PRM'))));
      const [movement] = parsePublishedDoc(readFileSync(join(folder, name)), layout);
      put(list[0] as Buffer, position(name, 14), '2.00'); // the debit alone: the record no longer balances
      writeRecords(name, list);
      const { from, to } = scopes(books);
      const cli = await reconcileCli(books, ['journal', '--from', from, '--to', to, '--json']);
      expect(cli.code).toBe(1);
      const unbalanced = jsonReport(cli).differences.filter((d) => d.kind === 'unbalanced_in_books');
      expect(unbalanced).toEqual([
        expect.objectContaining({
          document: documentOf(movement?.reference1 ?? ''),
          where: [`${name} record 1`],
          detail: expect.stringMatching(/^the record does not balance: debit \d+\.\d{2}, credit \d+\.\d{2}$/),
        }),
      ]);
    },
  );
});
