/**
 * Latency: order.created webhook to the order row in the ERP. The daemon runs with the orders flow, the demo ERP
 * (SQLite) and the embedded sandbox, which registers the daemon's webhook endpoint itself; the benchmark places
 * orders one at a time through the sandbox's control plane and polls the ERP file for each order's row.
 * Baseline: a bare receiver registered as a second endpoint for the same events, so the sandbox's own delivery
 * latency is measured on the same orders in the same run.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config/index.js';
import { DEMO_ERP_FILE } from '../connectors/demo-erp/demo-erp.js';
import { buildRegistries, startDaemon } from '../src/daemon/index.js';
import { sandboxControl } from '../src/sandbox/index.js';
import { listen } from './lib/bare-servers.js';
import { benchClient } from './lib/harness.js';
import { check, measured } from './lib/result.js';
import { meets, summarize } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

export const latency: Benchmark = {
  name: 'latency',
  title: 'Latency: order.created webhook to the ERP order row',
  target: 'p99 < 250 ms',
  run,
};

const CONFIG = `
api:
  sandbox: embedded
state:
  path: ./state/bench.db
server:
  host: 127.0.0.1
  port: 0
  webhook_path: /webhooks
log:
  level: silent
  pretty: false
connectors:
  erp:
    type: demo-erp
    data_dir: ./erp
    journal: false
jobs:
  orders:
    flow: orders
    connector: erp
    schedule: '0 3 * * *'
`;

/** Orders placed first and not counted: the first run of the job loads modules and warms the JIT. */
const WARM_UP_ORDERS = 3;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `orderId` has its row, with the time it was first seen; rejects after the timeout. */
async function waitForRow(
  find: (orderId: string) => unknown,
  orderId: string,
  timeoutMs: number,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (find(orderId) !== undefined) return performance.now();
    if (performance.now() > deadline)
      throw new Error(`order ${orderId} did not reach the ERP within ${timeoutMs} ms`);
    await sleep(1);
  }
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const orders = options.quick ? 15 : 200;
  const spacingMs = options.quick ? 300 : 400;
  return withTempDir('latency', async (dir) => {
    const configFile = join(dir, 'supply-sync.yaml');
    await writeFile(configFile, CONFIG);
    const registries = buildRegistries();
    const loaded = loadConfig(configFile, { registry: registries.config });
    const daemon = await startDaemon({ loaded, registries, port: 0, catchUp: false });
    const arrivals = new Map<string, number>();
    const bare = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(200).end();
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { id?: unknown } };
        const id = event.data?.id;
        if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, at);
      });
    });
    let erp: Database.Database | undefined;
    try {
      const controlUrl = daemon.env.endpoint.controlUrl;
      if (controlUrl === undefined) throw new Error('the embedded sandbox has no control URL');
      const control = sandboxControl(controlUrl);
      const api = benchClient(daemon.env.endpoint.baseUrl, daemon.env.endpoint.keyFor('supplier'));
      try {
        await api.webhooks.create({ url: `${bare.origin}/hook`, events: ['order.created'] });
      } finally {
        await api.close();
      }
      // Let the first scheduled or catch-up work settle before measuring.
      await sleep(500);
      erp = new Database(join(dir, 'erp', DEMO_ERP_FILE), { readonly: true, fileMustExist: true });
      const select = erp.prepare('SELECT 1 FROM ORDERS WHERE API_ORDER_ID = ?');
      const find = (orderId: string): unknown => select.get(orderId);

      options.log(`  ${WARM_UP_ORDERS} warm-up orders, then ${orders} measured, one every ${spacingMs} ms`);
      const toErp: number[] = [];
      const toBare: number[] = [];
      const placedAtById = new Map<string, number>();
      for (let i = -WARM_UP_ORDERS; i < orders; i++) {
        const placedAt = performance.now();
        const placed = (await control.action('buyer_send_order', { count: 1 })) as { order_ids: string[] };
        const orderId = placed.order_ids[0];
        if (orderId === undefined) throw new Error('buyer_send_order returned no order id');
        const seenAt = await waitForRow(find, orderId, 30_000);
        if (i >= 0) {
          toErp.push(seenAt - placedAt);
          placedAtById.set(orderId, placedAt);
        }
        await sleep(Math.max(0, spacingMs - (performance.now() - placedAt)));
      }
      // Bare deliveries that arrived after the ERP row still count for the baseline.
      await sleep(500);
      for (const [orderId, placedAt] of placedAtById) {
        const bareAt = arrivals.get(orderId);
        if (bareAt !== undefined) toBare.push(bareAt - placedAt);
      }
      const erpSummary = summarize(toErp);
      const bareSummary = summarize(toBare);
      const p99 = erpSummary.p99;
      return measured({
        name: latency.name,
        title: latency.title,
        startedAt,
        figure: { label: 'order placed -> ERP row, p99', value: p99, unit: 'ms' },
        baseline: { label: 'order placed -> bare receiver, p99', value: bareSummary.p99, unit: 'ms' },
        checks: [
          check('p99 < 250 ms', p99, 'ms', meets(p99, '<', 250)),
          check('every order reached the ERP', toErp.length, 'orders', toErp.length === orders),
        ],
        details: {
          'orders measured (after warm-up)': `${orders} (+${WARM_UP_ORDERS})`,
          'to ERP p50 / p90 / p99 / max (ms)': `${erpSummary.p50.toFixed(1)} / ${erpSummary.p90.toFixed(1)} / ${p99.toFixed(1)} / ${erpSummary.max.toFixed(1)}`,
          'to bare receiver p50 / p90 / p99 / max (ms)': `${bareSummary.p50.toFixed(1)} / ${bareSummary.p90.toFixed(1)} / ${bareSummary.p99.toFixed(1)} / ${bareSummary.max.toFixed(1)}`,
          'bare receiver deliveries matched': toBare.length,
        },
        notes: [
          'Ratio = p99 to the ERP row / p99 of the sandbox delivering the same event to a bare receiver (lower is better): what the daemon adds on top of delivery.',
          'Measured from just before the order is placed through the control plane; the daemon receives the signed webhook, stores it, triggers the orders job, which lists changed orders, maps the order and writes header and lines in one ERP transaction. The sandbox delivers webhooks from a background loop (20 ms tick), which both paths include.',
        ],
      });
    } finally {
      erp?.close();
      await bare.close();
      await daemon.stop(10_000);
    }
  });
}
