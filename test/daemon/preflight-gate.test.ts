import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlConnectorDefinition } from '../../connectors/sql/sql-connector.js';
import { SqliteDriver } from '../../src/kit/sql/sqlite-driver.js';
import type { Connector } from '../../src/connector-contract/index.js';
import type { Job, JobContext } from '../../src/engine/index.js';
import type { BuiltJob } from '../../src/daemon/services/environment.js';
import type { FlowDefinition } from '../../src/plugin/index.js';
import { PreflightGate } from '../../src/daemon/services/preflight-service.js';
import { catalogFlow } from '../../src/flows/catalog/index.js';
import { ordersFlow } from '../../src/flows/orders/index.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-preflight-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A job that only counts its runs: what matters here is whether the gate lets it run. */
function countingJob(name: string): Job & { runs: number } {
  const job = {
    name,
    runs: 0,
    run: () => {
      job.runs += 1;
      return Promise.resolve({ outcome: 'ok' as const, counts: {} });
    },
  };
  return job;
}

function built(job: Job, flow: unknown): BuiltJob {
  return { job, flow: flow as FlowDefinition, config: { connector: 'erp' } as BuiltJob['config'] };
}

describe('pre-flight at daemon start', () => {
  it('holds back only the job whose statements fail, with file, key and name, and releases it once fixed', async () => {
    const file = join(dir, 'erp.sqlite');
    const setup = new SqliteDriver(file);
    await setup.exec(`CREATE TABLE items (sku TEXT, name TEXT, unit TEXT);
      CREATE TABLE orders (no TEXT, api_order_id TEXT);
      CREATE TABLE order_lines (no TEXT, item TEXT);`);
    const connector: Connector = await sqlConnectorDefinition.create(
      sqlConnectorDefinition.configSchema.parse({
        connection: { driver: 'sqlite', file },
        statements: {
          catalog: { products: 'SELECT sku, name, unit FROM items' },
          orders: {
            find: 'SELECT no AS erp_order_number FROM orders WHERE api_order_id = :api_order_id',
            insert_header: 'INSERT INTO orders (no, api_order_id) VALUES (:api_order_id, :api_order_id)',
            insert_line:
              'INSERT INTO order_lines (no, item, price) VALUES (:erp_order_number, :item_code, :unit_price)',
          },
        },
      }),
      { name: 'erp', baseDir: dir },
    );
    const orders = countingJob('orders');
    const catalog = countingJob('catalog');
    const gate = await PreflightGate.open(
      {
        file: 'config/erp.yaml',
        connectors: new Map([['erp', connector]]),
        jobs: new Map([
          ['orders', built(orders, ordersFlow)],
          ['catalog', built(catalog, catalogFlow)],
        ]),
      },
      pino({ level: 'silent' }),
    );
    const ctx = {} as JobContext;

    expect(gate.reason('catalog')).toBeUndefined();
    expect(gate.reason('orders')).toMatch(
      /^pre-flight failed: config\/erp\.yaml: connectors\.erp\.statements\.orders\.insert_line: the database rejects it: .*price/,
    );
    expect(await gate.guard('catalog', catalog).run(ctx)).toEqual({ outcome: 'ok', counts: {} });
    const held = await gate.guard('orders', orders).run(ctx);
    expect(held.outcome).toBe('failed');
    expect(held.error).toBe(gate.reason('orders'));
    expect([orders.runs, catalog.runs]).toEqual([0, 1]);

    await setup.exec('ALTER TABLE order_lines ADD COLUMN price NUMERIC');
    expect(await gate.guard('orders', orders).run(ctx)).toEqual({ outcome: 'ok', counts: {} });
    expect(gate.reason('orders')).toBeUndefined();
    expect(orders.runs).toBe(1);
    await setup.close();
    await connector.close();
  });
});
