import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { startSandbox } from '../../src/sandbox/index.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

describe('daemon start with a statement that fails the pre-flight', () => {
  let dir: string;
  let sandbox: Sandbox;
  let daemon: Daemon;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-preflight-start-'));
    sandbox = await startSandbox({});
    const erp = new Database(join(dir, 'erp.sqlite'));
    erp.exec(`
      CREATE TABLE items (sku TEXT PRIMARY KEY, name TEXT, unit TEXT);
      CREATE TABLE orders (no TEXT PRIMARY KEY, api_order_id TEXT NOT NULL UNIQUE, customer TEXT);
      CREATE TABLE order_lines (no TEXT, line_no INTEGER, item TEXT, qty NUMERIC, price NUMERIC);`);
    erp.close();
    file = join(dir, 'supply-sync.yaml');
    await writeFile(
      file,
      [
        'api:',
        `  base_url: ${sandbox.baseUrl}`,
        `  api_key: ${sandbox.keys.supplier}`,
        'state:',
        '  path: state/daemon.db',
        'server:',
        '  port: 0',
        'log:',
        '  level: silent',
        'connectors:',
        '  erp:',
        '    type: sql',
        '    connection: { driver: sqlite, file: erp.sqlite }',
        '    statements:',
        '      catalog:',
        '        products: SELECT sku, name, unit FROM items',
        '      orders:',
        '        find: SELECT no AS erp_order_number FROM orders WHERE api_order_id = :api_order_id',
        "        insert_header: INSERT INTO orders (no, api_order_id) VALUES ('E-' || :api_order_id, :api_order_id)",
        '        insert_line: INSERT INTO order_lines (no, item, price) VALUES (:erp_order_number, :item_code, :unit_pricee)',
        'jobs:',
        '  orders:',
        '    flow: orders',
        '    connector: erp',
        '  catalog:',
        '    flow: catalog',
        '    connector: erp',
        '',
      ].join('\n'),
    );
    const registry = buildPluginRegistry();
    daemon = await runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
      catchUp: false,
    });
  }, 60_000);

  afterAll(async () => {
    await daemon?.stop(5_000);
    await sandbox?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fails the held job with the reason, turns no order into a dead letter, and runs the other job', async () => {
    await daemon.runNow('orders');
    const orders = daemon.env.state.runs.last('orders');
    expect(orders?.outcome).toBe('failed');
    expect(orders?.error).toMatch(/^pre-flight failed: /);
    expect(orders?.error).toContain(
      `${file}: connectors.erp.statements.orders.insert_line: parameter :unit_pricee is not one supply-sync provides to this statement; did you mean :unit_price?`,
    );
    expect(orders?.error).toMatch(/\(provided: :api_order_id, .*:unit_price, .*:line_notes\)$/);
    expect(daemon.env.state.deadLetters.countOpen()).toBe(0);

    await daemon.runNow('catalog');
    const catalog = daemon.env.state.runs.last('catalog');
    expect(catalog?.error ?? '').not.toContain('pre-flight');

    const status = (await (
      await fetch(`${daemon.opsUrl}/status`, { headers: { accept: 'application/json' } })
    ).json()) as { jobs: { name: string; lastError: string | null }[] };
    const shown = status.jobs.find((job) => job.name === 'orders');
    expect(shown?.lastError).toBe(orders?.error);
    expect(JSON.stringify(status)).not.toContain(sandbox.keys.supplier);
  }, 60_000);
});
