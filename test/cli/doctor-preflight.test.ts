import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDriver } from '../../src/kit/sql/pg-driver.js';
import { serviceProbe } from '../connectors/services.js';
import { runCli, STACK_LINE } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-doctor-preflight-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ERP_SCHEMA = `
  CREATE TABLE items (sku TEXT PRIMARY KEY, item_name TEXT, unit TEXT);
  CREATE TABLE orders (no TEXT PRIMARY KEY, api_order_id TEXT NOT NULL, customer TEXT);
  CREATE TABLE order_lines (no TEXT, line_no INTEGER, item TEXT, qty NUMERIC, price NUMERIC);
`;

/** A supplier config whose insert_line misspells :unit_price and whose products SELECT misses the name alias. */
function configText(connection: string[]): string {
  return [
    'api:',
    '  sandbox: embedded',
    'state:',
    `  path: ${join(dir, 'state', 'state.db')}`,
    'connectors:',
    '  erp:',
    '    type: sql',
    '    connection:',
    ...connection.map((line) => `      ${line}`),
    '    statements:',
    '      orders:',
    '        find: SELECT no AS erp_order_number FROM orders WHERE api_order_id = :api_order_id',
    '        insert_header: >-',
    "          INSERT INTO orders (no, api_order_id, customer) VALUES ('E-' || :api_order_id, :api_order_id,",
    '          :customer_number)',
    '        insert_line: >-',
    '          INSERT INTO order_lines (no, line_no, item, qty, price)',
    '          VALUES (:erp_order_number, :line_number, :item_code, :quantity, :unit_pricee)',
    '      catalog:',
    '        products: SELECT sku, item_name, unit FROM items',
    'jobs:',
    '  orders:',
    '    flow: orders',
    '    connector: erp',
    '  catalog:',
    '    flow: catalog',
    '    connector: erp',
    '',
  ].join('\n');
}

function expectPreflightFindings(file: string, stdout: string, stderr: string): void {
  expect(stdout).toContain(
    `FAIL connector erp      ${file}: connectors.erp.statements.orders.insert_line: parameter :unit_pricee is not one supply-sync provides to this statement; did you mean :unit_price?`,
  );
  expect(stdout).toContain(
    `FAIL connector erp      ${file}: connectors.erp.statements.catalog.products: returns no column "name"; did you mean item_name? (returned: sku, item_name, unit)`,
  );
  expect(stderr).toMatch(/^2 failed, /m);
}

describe('supply-sync doctor prepares the configured statements against the real database', () => {
  it(
    'names file, config key, bad name and did-you-mean on SQLite, and exits non-zero',
    { timeout: 90_000 },
    async () => {
      const erp = join(dir, 'erp.sqlite');
      const db = new Database(erp);
      db.exec(ERP_SCHEMA);
      db.close();
      const file = join(dir, 'sqlite.yaml');
      writeFileSync(file, configText(['driver: sqlite', `file: ${erp}`]));
      const { code, stdout, stderr } = await runCli(['doctor', '--offline', '--config', file]);
      expectPreflightFindings(file, stdout, stderr);
      expect(code).not.toBe(0);
      expect(stderr).toContain('doctor found problems');
      expect(stderr).not.toMatch(STACK_LINE);
    },
  );

  it(
    'config validate catches, without a database, a parameter the flow never provides (exit 2)',
    { timeout: 90_000 },
    async () => {
      const file = join(dir, 'static.yaml');
      // No database file at all: this check reads the config only.
      writeFileSync(file, configText(['driver: sqlite', `file: ${join(dir, 'absent.sqlite')}`]));
      const { code, stdout, stderr } = await runCli(['config', 'validate', '--config', file]);
      expect(stdout).toBe('');
      expect(stderr).toContain(
        `${file}: connectors.erp.statements.orders.insert_line: parameter :unit_pricee is not one supply-sync provides to this statement; did you mean :unit_price?`,
      );
      expect(stderr).toContain('config is invalid: 1 problem');
      expect(code).toBe(2);
      const fixed = join(dir, 'static-fixed.yaml');
      writeFileSync(
        fixed,
        configText(['driver: sqlite', `file: ${join(dir, 'absent.sqlite')}`]).replace(
          ':unit_pricee',
          ':unit_price',
        ),
      );
      const ok = await runCli(['config', 'validate', '--config', fixed]);
      expect(ok.stdout).toMatch(/: OK \(1 connector, 2 jobs\)$/m);
      expect(ok.code).toBe(0);
    },
  );

  const pgUrl = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `ss_doctor_${process.pid}`;
  const password = 'Doctor-Secret-pw-7731';
  let pgReason = '';
  beforeAll(async () => {
    const probe = await serviceProbe('PostgreSQL', pgUrl, async () => {
      const admin = new PgDriver({ url: pgUrl, poolSize: 1 });
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.query(`CREATE SCHEMA ${schema}`);
        for (const statement of ERP_SCHEMA.split(';').filter((text) => text.trim() !== '')) {
          await admin.query(statement.replace('CREATE TABLE ', `CREATE TABLE ${schema}.`));
        }
      } finally {
        await admin.close();
      }
    });
    pgReason = probe.available ? '' : probe.reason;
  });
  afterAll(async () => {
    if (pgReason !== '') return;
    const admin = new PgDriver({ url: pgUrl, poolSize: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => admin.close());
  });

  it(
    'does the same on PostgreSQL, and never prints the password of the connection URL',
    { timeout: 90_000 },
    async (context) => {
      if (pgReason !== '') {
        if (process.env['SUPPLY_SYNC_REQUIRE_SERVICES'] === '1') throw new Error(pgReason);
        context.skip(pgReason);
      }
      // The local server trusts loopback connections, so the password is sent and ignored: a real secret to leak.
      const url = new URL(pgUrl);
      url.password = password;
      const file = join(dir, 'pg.yaml');
      writeFileSync(file, configText(['driver: pg', 'url: ${ERP_URL}', `schema: ${schema}`]));
      const { code, stdout, stderr } = await runCli(['doctor', '--offline', '--config', file], {
        ERP_URL: url.toString(),
      });
      expectPreflightFindings(file, stdout, stderr);
      expect(code).not.toBe(0);
      expect(`${stdout}\n${stderr}`).not.toContain(password);
    },
  );
});
