/**
 * Reconcile names a SQL journal row by its line key, never by its position in a SELECT: the primary key of a table
 * without a line_number column (PostgreSQL after an UPDATE moves the row; SQLite after a DELETE of another row),
 * and the batch and line_number columns when mapped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PG_URL, postgresProbe } from '../support/postgres.js';
import { exportedBooks, scopes, type Books } from './books.js';

const COLUMNS = {
  batch_key: 'batch',
  side: 'side',
  account: 'account',
  amount: 'amount',
  date: 'doc_date',
  reference: 'reference',
  source_ids: 'source',
};
const TABLE_COLUMNS =
  'batch TEXT, side TEXT, account TEXT, amount NUMERIC, doc_date DATE, reference TEXT, source TEXT';

const probe = await postgresProbe();
const schema = `lk_${process.pid}_${Math.floor(Math.random() * 1e6)}`;

async function pgQuery(sql: string): Promise<Record<string, string>[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, string>[];
  } finally {
    await client.end();
  }
}

let books: Books | undefined;
afterEach(async () => {
  await books?.close();
  books = undefined;
});

/** The amount_differs difference of the row whose `source` is `source`. */
async function changedRow(source: string | undefined) {
  if (books === undefined) throw new Error('no books');
  const { from, to } = scopes(books);
  const report = await books.reconcile({ from, to });
  const found = report.differences.filter((d) => d.kind === 'amount_differs');
  expect(found).toHaveLength(1);
  expect(found[0]?.apiIds).toEqual([source]);
  return found[0];
}

describe.skipIf(!probe.available)('PostgreSQL journal table with a primary key', () => {
  afterAll(async () => void (await pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)));

  it('after an UPDATE, the difference names the row by its primary key', { timeout: 120_000 }, async () => {
    await pgQuery(`CREATE SCHEMA ${schema}`);
    await pgQuery(`CREATE TABLE ${schema}.gl (id SERIAL PRIMARY KEY, ${TABLE_COLUMNS})`);
    books = await exportedBooks(() => ({
      type: 'sql',
      connection: { driver: 'pg', url: PG_URL },
      journal: { table: `${schema}.gl`, batch_key_table: `${schema}.batches`, columns: COLUMNS },
    }));
    const rows = await pgQuery(`SELECT id, source FROM ${schema}.gl ORDER BY id`);
    const target = rows[8];
    // An UPDATE writes a new row version: PostgreSQL's unordered SELECT then returns it in another place.
    await pgQuery(`UPDATE ${schema}.gl SET amount = amount + 1 WHERE id = ${target?.['id']}`);
    const difference = await changedRow(target?.['source']);
    expect(difference?.where).toEqual([`${schema}.gl id ${target?.['id']}`]);
  });
});

describe('SQLite journal tables', () => {
  it(
    'after a DELETE of an earlier row, the names of the later rows do not shift',
    { timeout: 120_000 },
    async () => {
      books = await exportedBooks((dir) => {
        const db = new Database(join(dir, 'books.db'));
        db.exec(`CREATE TABLE gl (id INTEGER PRIMARY KEY, ${TABLE_COLUMNS})`);
        db.close();
        return {
          type: 'sql',
          connection: { driver: 'sqlite', file: join(dir, 'books.db') },
          journal: { table: 'gl', columns: COLUMNS },
        };
      });
      const db = new Database(join(books.dir, 'books.db'));
      try {
        const rows = db.prepare('SELECT id, source, reference FROM gl ORDER BY id').all() as Record<
          string,
          string
        >[];
        const [first, target] = [rows[0], rows[8]];
        db.prepare('DELETE FROM gl WHERE id = ?').run(first?.['id']);
        db.prepare('UPDATE gl SET amount = amount + 1 WHERE id = ?').run(target?.['id']);
      } finally {
        db.close();
      }
      const { from, to } = scopes(books);
      const report = await books.reconcile({ from, to });
      const changed = report.differences.find((d) => d.kind === 'amount_differs');
      const target = (
        new Database(join(books.dir, 'books.db')).prepare('SELECT id FROM gl ORDER BY id').all() as {
          id: number;
        }[]
      )[7];
      expect(changed?.where).toEqual([`gl id ${target?.id}`]);
      expect(report.differences.filter((d) => d.kind === 'missing_in_books')).toHaveLength(1);
    },
  );

  it(
    'with line_number mapped, names the row by its batch and line number',
    { timeout: 120_000 },
    async () => {
      books = await exportedBooks((dir) => ({
        type: 'sql',
        connection: { driver: 'sqlite', file: join(dir, 'books.db') },
        journal: { table: 'gl', columns: { ...COLUMNS, line_number: 'line_no' }, create_tables: true },
      }));
      const db = new Database(join(books.dir, 'books.db'));
      let target: Record<string, string | number> | undefined;
      try {
        const rows = db
          .prepare('SELECT batch, line_no, source FROM gl ORDER BY batch, line_no')
          .all() as Record<string, string | number>[];
        target = rows[8];
        db.prepare('UPDATE gl SET amount = amount + 1 WHERE batch = ? AND line_no = ?').run(
          target?.['batch'],
          target?.['line_no'],
        );
      } finally {
        db.close();
      }
      const difference = await changedRow(String(target?.['source']));
      expect(difference?.where).toEqual([`gl batch ${target?.['batch']}, line_no ${target?.['line_no']}`]);
    },
  );
});

/** The journal block of config/accountant-journal.yaml, its tables moved into `schema`. */
function exampleJournal(
  schema: string,
): { table: string; columns: Record<string, string> } & Record<string, unknown> {
  const text = readFileSync(join(import.meta.dirname, '../../config/accountant-journal.yaml'), 'utf8');
  const config = parse(text) as { connectors: { books: { journal: Record<string, unknown> } } };
  const journal = config.connectors.books.journal;
  return {
    ...journal,
    table: String(journal['table']).replace(/^gl\./, `${schema}.`),
    batch_key_table: String(journal['batch_key_table']).replace(/^gl\./, `${schema}.`),
    columns: journal['columns'] as Record<string, string>,
  };
}

describe.skipIf(!probe.available)('the shipped SQL example on PostgreSQL', () => {
  const example = `${schema}_ex`;
  afterAll(async () => void (await pgQuery(`DROP SCHEMA IF EXISTS ${example} CASCADE`)));

  it(
    'creates a table keyed by batch and line, and names a changed row by both',
    { timeout: 120_000 },
    async () => {
      await pgQuery(`CREATE SCHEMA ${example}`);
      const journal = exampleJournal(example);
      books = await exportedBooks(() => ({
        type: 'sql',
        connection: { driver: 'pg', url: PG_URL },
        journal: { ...journal, create_tables: true },
      }));
      const key = await pgQuery(
        `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
         WHERE i.indisprimary AND i.indrelid = '${journal.table}'::regclass ORDER BY array_position(i.indkey, a.attnum)`,
      );
      const batch = journal.columns['batch_key'];
      expect(batch).toBeDefined();
      expect(key.map((row) => row['name'])).toEqual([batch, journal.columns['line_number']]);
      // Line numbers restart in every batch: a row whose line number another batch has too.
      const rows = await pgQuery(`SELECT ${batch} AS batch, line_no FROM ${journal.table} ORDER BY 1, 2`);
      const target = rows.find(
        (row) => row['line_no'] === rows.at(-1)?.['line_no'] && row['batch'] !== rows.at(-1)?.['batch'],
      );
      expect(target).toBeDefined();
      await pgQuery(
        `UPDATE ${journal.table} SET amount = amount + 1 WHERE ${batch} = '${target?.['batch']}' AND line_no = ${target?.['line_no']}`,
      );
      const { from, to } = scopes(books);
      const changed = (await books.reconcile({ from, to })).differences.filter(
        (d) => d.kind === 'amount_differs',
      );
      expect(changed).toHaveLength(1);
      expect(changed[0]?.where).toContain(
        `${journal.table} ${batch} ${target?.['batch']}, line_no ${target?.['line_no']}`,
      );
    },
  );

  it(
    'a table without a key and no batch column: rows are named by what they hold, and the report says so',
    { timeout: 120_000 },
    async () => {
      const bare = `${example}.bare_lines`;
      const { batch_key: _batch, ...columns } = exampleJournal(example).columns;
      books = await exportedBooks(() => ({
        type: 'sql',
        connection: { driver: 'pg', url: PG_URL },
        journal: { table: bare, batch_key_table: `${example}.bare_batches`, columns, create_tables: true },
      }));
      const rows = await pgQuery(`SELECT reference, line_no FROM ${bare} ORDER BY reference, line_no`);
      const target = rows[3];
      await pgQuery(
        `UPDATE ${bare} SET amount = amount + 1 WHERE reference = '${target?.['reference']}' AND line_no = ${target?.['line_no']}`,
      );
      const { from, to } = scopes(books);
      const report = await books.reconcile({ from, to });
      const changed = report.differences.find((d) => d.kind === 'amount_differs');
      const named = changed?.where.find((where) => where.includes(`line_no ${target?.['line_no']}`)) ?? '';
      expect(named).toContain(`reference ${target?.['reference']}`);
      expect(named).not.toMatch(/^\S+ line_no \d+$/);
      expect(report.notes.join('\n')).toMatch(/no key tells the rows of .*bare_lines apart/);
      expect(report.notes.join('\n')).toContain('journal.columns.batch_key');
    },
  );
});
