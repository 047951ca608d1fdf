/**
 * reconcile journal against a SQL journal table the real export filled, on SQLite and on PostgreSQL: a clean run
 * matches; a row deleted, an amount changed and a row inserted by hand are each named; the table is read only.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteDriver } from '../../src/kit/sql/index.js';
import { PG_URL, postgresProbe } from '../support/postgres.js';
import { exportedBooks, scopes, type Books } from './books.js';

const COLUMNS = {
  batch_key: 'batch',
  line_number: 'line_no',
  side: 'side',
  account: 'account',
  amount: 'amount',
  date: 'doc_date',
  value_date: 'value_date',
  reference: 'reference',
  source_ids: 'source',
};

interface Target {
  readonly name: string;
  readonly table: string;
  /** The companion table of written batch keys, in the test's own schema on a shared server. */
  readonly batchKeyTable: string;
  connection(dir: string): Record<string, unknown>;
  run(books: Books, sql: string): Promise<unknown[]>;
  setUp?(): Promise<void>;
  tearDown?(): Promise<void>;
}

const schema = `rc_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
const probe = await postgresProbe();

const sqlite: Target = {
  name: 'SQLite',
  table: 'gl_journal',
  batchKeyTable: 'supply_sync_batches',
  connection: (dir) => ({ driver: 'sqlite', file: join(dir, 'books.db') }),
  async run(books, sql) {
    const driver = new SqliteDriver(join(books.dir, 'books.db'));
    try {
      return (await driver.query(sql)).rows;
    } finally {
      await driver.close();
    }
  },
};

const postgres: Target = {
  name: 'PostgreSQL',
  table: `${schema}.gl_journal`,
  batchKeyTable: `${schema}.supply_sync_batches`,
  connection: () => ({ driver: 'pg', url: PG_URL }),
  run: (_books, sql) => pgQuery(sql),
  setUp: async () => void (await pgQuery(`CREATE SCHEMA ${schema}`)),
  tearDown: async () => void (await pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)),
};

async function pgQuery(sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rows as unknown[];
  } finally {
    await client.end();
  }
}

const targets = probe.available ? [sqlite, postgres] : [sqlite];
if (!probe.available) describe.skip(`PostgreSQL journal table (skipped: ${probe.reason})`, () => undefined);

describe.each(targets)('reconcile journal on a $name journal table', (target) => {
  let books: Books;
  beforeAll(async () => {
    await target.setUp?.();
    books = await exportedBooks((dir) => ({
      type: 'sql',
      connection: target.connection(dir),
      journal: {
        table: target.table,
        batch_key_table: target.batchKeyTable,
        columns: COLUMNS,
        create_tables: true,
      },
    }));
  }, 120_000);
  afterAll(async () => {
    await (books as Books | undefined)?.close();
    await target.tearDown?.();
  });

  it('matches a clean export with zero differences', { timeout: 60_000 }, async () => {
    const { period, from, to } = scopes(books);
    expect((await books.reconcile({ period })).differences).toEqual([]);
    const all = await books.reconcile({ from, to });
    expect(all.differences).toEqual([]);
    expect(all.counts['books_entries']).toBe(books.exported.length);
  });

  it(
    'names a row deleted, an amount changed and a row nobody exported, and changes nothing',
    { timeout: 60_000 },
    async () => {
      const { from, to } = scopes(books);
      const rows = (await target.run(
        books,
        `SELECT source, reference, account, amount FROM ${target.table} ORDER BY source`,
      )) as Record<string, string>[];
      const [gone, changed, template] = [rows[0], rows[5], rows[9]] as Record<string, string>[];
      await target.run(books, `DELETE FROM ${target.table} WHERE source = '${gone?.['source']}'`);
      await target.run(
        books,
        `UPDATE ${target.table} SET amount = '0.01' WHERE source = '${changed?.['source']}'`,
      );
      await target.run(
        books,
        `INSERT INTO ${target.table} (batch, line_no, side, account, amount, doc_date, value_date, reference, source) ` +
          `VALUES ('manual', 1, 'debit', '${template?.['account']}', '10.00', '${to}', '${to}', 'MANUAL-7', 'none')`,
      );
      const before = JSON.stringify(
        await target.run(books, `SELECT * FROM ${target.table} ORDER BY source, batch`),
      );
      const report = await books.reconcile({ from, to });
      const found = report.differences.map((d) => `${d.kind} ${d.document} ${d.account}`);
      expect(found).toContain(`missing_in_books ${gone?.['reference']} ${gone?.['account']}`);
      expect(report.differences.find((d) => d.kind === 'missing_in_books')?.apiIds).toEqual([
        gone?.['source'],
      ]);
      expect(found).toContain(`amount_differs ${changed?.['reference']} ${changed?.['account']}`);
      expect(found).toContain(`not_exported_by_api MANUAL-7 ${template?.['account']}`);
      expect(found).toHaveLength(3);
      expect(
        JSON.stringify(await target.run(books, `SELECT * FROM ${target.table} ORDER BY source, batch`)),
      ).toBe(before);
    },
  );
});
