/**
 * The buyer example configs run as shipped, once, with `supply-sync sync <job>` against the sandbox over HTTP:
 * only the `api` block is pointed at the sandbox (the examples name a production URL and a secret file); their
 * connectors, paths, jobs, options and mappings are used unchanged, relative to a copy of the file in a temp folder.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { createApiClient, type ApiClient } from '../../src/client/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../cli/run-cli.js';

const CONFIG_DIR = join(import.meta.dirname, '../../config');

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
let api: ApiClient;
const dirs: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimitOverrides: { all: { per_minute: 100_000 } } });
  api = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.buyer });
});

afterAll(async () => {
  await api?.close();
  await sandbox?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A copy of a shipped config in a fresh folder, its `api` block pointed at the sandbox's buyer side, without notifications. */
async function copyForSandbox(file: string): Promise<{ dir: string; config: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'supply-sync-example-'));
  dirs.push(dir);
  const document = parseDocument(await readFile(join(CONFIG_DIR, file), 'utf8'));
  document.set('api', { base_url: sandbox.baseUrl, api_key: '${SUPPLY_API_KEY}' });
  // A sync by hand sends no notifications; their block needs the SMTP password and the webhook's file (see examples.test.ts).
  document.delete('notifications');
  const config = join(dir, file);
  await writeFile(config, document.toString());
  return { dir, config };
}

async function sync(config: string, job: string): Promise<string> {
  const result = await runCli(['sync', job, '--config', config], { SUPPLY_API_KEY: sandbox.keys.buyer });
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return result.stdout;
}

async function ids(items: AsyncIterable<unknown>): Promise<string[]> {
  const found: string[] = [];
  for await (const item of items) found.push((item as { id: string }).id);
  return found.sort();
}

describe('config/buyer-mirror.yaml', () => {
  it('mirrors the buyer data into the SQLite file it names', { timeout: 120_000 }, async () => {
    const { dir, config } = await copyForSandbox('buyer-mirror.yaml');
    const stdout = await sync(config, 'mirror');
    expect(stdout).toMatch(/^mirror: ok/m);

    const db = new Database(join(dir, 'purchasing-mirror.db'), { readonly: true });
    try {
      const mirrored = (table: string): string[] =>
        (db.prepare(`SELECT id FROM ${table} WHERE deleted_at IS NULL ORDER BY id`).all() as { id: string }[])
          .map((row) => row.id)
          .sort();
      const orders = await ids(api.purchases.orders().items());
      expect(orders.length).toBeGreaterThan(0);
      expect(mirrored('mirror_orders')).toEqual(orders);
      expect(mirrored('mirror_expenses')).toEqual(await ids(api.expenses.list().items()));
      // The flattened columns of the example hold the record's values.
      const row = db.prepare('SELECT number, total, record FROM mirror_orders LIMIT 1').get() as {
        number: string;
        total: unknown;
        record: string;
      };
      const record = JSON.parse(row.record) as { number: string; totals: { with_vat: string } };
      expect(row.number).toBe(record.number);
      expect(Number(row.total)).toBe(Number(record.totals.with_vat));
    } finally {
      db.close();
    }
  });
});

describe('config/pos-sales.yaml', () => {
  it(
    'pushes the files of its drop folder, mapping POS branch codes, and moves them to done/',
    { timeout: 120_000 },
    async () => {
      const { dir, config } = await copyForSandbox('pos-sales.yaml');
      const drop = join(dir, 'pos-export');
      await mkdir(drop, { recursive: true });
      await writeFile(
        join(drop, 'z-20261120.csv'),
        'branch_code,z_number,closed_at,total_before_vat,tips\r\n001,ZEX-1,2026-11-20T23:10:00+02:00,1250.50,30\r\n',
      );
      await writeFile(
        join(drop, 'items-20261120.csv'),
        'branch_code,z_number,value_date,item_code,item_name,quantity,unit_price,total\r\n' +
          '001,ZEX-1,2026-11-20T12:00:00+02:00,B-100,Burger,2,54.90,109.80\r\n',
      );
      // Older than the example's min_age of 5s, as a finished POS export would be.
      const { utimes } = await import('node:fs/promises');
      const past = new Date(Date.now() - 60_000);
      for (const file of await readdir(drop)) await utimes(join(drop, file), past, past);

      const stdout = await sync(config, 'sales');
      expect(stdout).toMatch(/^sales: ok/m);

      const readout = await sandbox.control.state();
      const zReports = Object.values(readout['zReports'] as Record<string, Record<string, unknown>>).filter(
        (z) => z['z_number'] === 'ZEX-1',
      );
      expect(zReports.map((z) => [z['branch_id'], z['total_before_vat']])).toEqual([['br_tlv', '1250.50']]);
      const itemSales = Object.values(readout['itemSales'] as Record<string, Record<string, unknown>>).filter(
        (sale) => sale['z_number'] === 'ZEX-1',
      );
      expect(itemSales.map((sale) => [sale['branch_id'], sale['item_code']])).toEqual([['br_tlv', 'B-100']]);
      expect((await readdir(join(drop, 'done'))).sort()).toEqual(['items-20261120.csv', 'z-20261120.csv']);
    },
  );
});
