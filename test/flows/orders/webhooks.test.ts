import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../../src/daemon/index.js';
import { sandboxControl } from '../../../src/sandbox/harness/client.js';
import { DEMO_SHIP_TO } from './harness.js';

/**
 * The whole daemon with its embedded sandbox: signed order webhooks, each delivered twice and some out of order,
 * trigger the orders job (its schedule never fires during the test); every order lands once and is acknowledged once.
 */
describe('orders flow triggered by webhooks in the daemon', () => {
  let dir: string;
  let daemon: Daemon | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-orders-daemon-'));
  });

  afterEach(async () => {
    await daemon?.stop(5_000);
    daemon = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('turns duplicated and reordered order webhooks into one ERP write and one acknowledgement each', async () => {
    const file = join(dir, 'supply-sync.yaml');
    const branches = Object.entries(DEMO_SHIP_TO).map(([id, code]) => `    ${id}: ${code}`);
    await writeFile(
      file,
      [
        'api:',
        '  sandbox: embedded',
        'state:',
        '  path: state/daemon.db',
        'server:',
        '  port: 0',
        'log:',
        '  level: silent',
        'connectors:',
        '  erp:',
        '    type: demo-erp',
        '    data_dir: erp',
        '    journal: false',
        'jobs:',
        '  orders:',
        '    flow: orders',
        '    connector: erp',
        "    schedule: '0 3 1 1 *'",
        '    options:',
        `      start_from: '${new Date().toISOString()}'`,
        'mappings:',
        '  branches:',
        ...branches,
      ].join('\n'),
    );
    const registry = buildPluginRegistry();
    daemon = await runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
      catchUp: false,
    });
    const controlUrl = daemon.env.endpoint.controlUrl;
    if (controlUrl === undefined) throw new Error('the embedded sandbox has no control URL');
    const control = sandboxControl(controlUrl);
    await control.setFaults({
      webhook_duplicate_rate: 1,
      webhook_reorder: 0.5,
      webhook_reorder_delay_ms: 200,
      seed: 3,
    });

    const sent = (await control.action('buyer_send_order', { count: 4 })) as { order_ids: string[] };
    const erpFile = join(dir, 'erp', 'demo-erp.sqlite');
    const tallies = async () =>
      ((await control.state())['orderTallies'] ?? {}) as Record<string, { acknowledgements: number }>;
    const deadline = Date.now() + 20_000;
    let landed: Array<{ API_ORDER_ID: string; n: number }> = [];
    while (Date.now() < deadline) {
      const db = new Database(erpFile, { readonly: true });
      landed = db
        .prepare(
          'SELECT API_ORDER_ID, COUNT(*) AS n FROM ORDERS WHERE API_ORDER_ID IS NOT NULL GROUP BY API_ORDER_ID',
        )
        .all() as Array<{ API_ORDER_ID: string; n: number }>;
      db.close();
      const acks = await tallies();
      if (landed.length === 4 && sent.order_ids.every((id) => acks[id]?.acknowledgements === 1)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // More webhooks follow the acknowledgements' own order.updated events; let them and their duplicates settle.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(landed.map((row) => row.API_ORDER_ID).sort()).toEqual([...sent.order_ids].sort());
    expect(landed.every((row) => row.n === 1)).toBe(true);
    const acks = await tallies();
    for (const id of sent.order_ids) expect(acks[id]?.acknowledgements).toBe(1);
    // The sandbox posted every event twice: the receiver answered the second copy as a duplicate.
    const platform = (await control.state())['platform'] as {
      deliveries: Array<{ response_snippet: string | null }>;
    };
    expect(
      platform.deliveries.filter((d) => d.response_snippet?.includes('"duplicate":true')).length,
    ).toBeGreaterThan(0);
    expect(daemon.env.state.inbox.counts().dispatched).toBeGreaterThanOrEqual(4);
    const runs = daemon.env.state.runs.recent('orders', 50);
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((run) => run.trigger === 'webhook')).toBe(true);
  });
});
