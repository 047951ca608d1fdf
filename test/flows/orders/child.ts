/**
 * Child process of the crash tests: runs the orders job (or the order-confirm job) against the parent's sandbox,
 * on a real state file and the demo ERP, until killed. Usage: node --import tsx child.ts '<json settings>'
 * Modes: "loop" runs forever (the parent kills it); "converge" runs until two runs in a row find nothing to do,
 * prints "converged" and exits 0. Each run's counts are printed as one JSON line.
 */
import path from 'node:path';
import { pino } from 'pino';
import { createApiClient } from '../../../src/client/index.js';
// The demo ERP and its statements directly, without the SQL Server and PostgreSQL drivers: a faster start means
// more kill points per second of test.
import { openDemoErp } from '../../../connectors/sql/demo-erp/demo-erp.js';
import { demoErpStatements } from '../../../connectors/sql/demo-erp/statements.js';
import { SqlOrderSink } from '../../../connectors/sql/erp-orders.js';
import { SqlConfirmationSource } from '../../../connectors/sql/erp-reactions.js';
import type { Connector } from '../../../src/connector-contract/index.js';
import type { FlowDeps } from '../../../src/plugin/index.js';
import { runJob, type Job } from '../../../src/engine/index.js';
import { orderConfirmFlow } from '../../../src/flows/order-confirm/index.js';
import { ordersFlow } from '../../../src/flows/orders/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';

interface ChildSettings {
  flow: 'orders' | 'order-confirm';
  baseUrl: string;
  apiKey: string;
  dir: string;
  startFrom: string;
  mode: 'loop' | 'converge';
  shipTo: Record<string, string>;
}

/** Counts that mean a run did something. */
const BUSY = [
  'written',
  'recovered',
  'updated',
  'cancelled',
  'acknowledged',
  'replayed',
  'sent',
  'reconciled',
  'marked',
];

const settings = JSON.parse(process.argv[2] ?? '{}') as ChildSettings;
const logger = pino({ level: 'silent' });
const state = openStateStore({ file: path.join(settings.dir, `${settings.flow}.db`), clock: systemClock });
state.runs.closeInterrupted();
const erpDb = await openDemoErp(path.join(settings.dir, 'erp'));
const { orders, confirmations } = demoErpStatements;
if (orders === undefined || confirmations === undefined)
  throw new Error('the demo ERP statements are incomplete');
const erp: Connector = {
  type: 'demo-erp',
  capabilities: {
    orderSink: new SqlOrderSink(erpDb.driver, orders, 'erp'),
    confirmationSource: new SqlConfirmationSource(erpDb.driver, confirmations, 'erp'),
  },
  check: () => Promise.resolve([]),
  close: () => erpDb.driver.close(),
};
const api = createApiClient({
  baseUrl: settings.baseUrl,
  apiKey: settings.apiKey,
  retry: { maxAttempts: 8, baseDelayMs: 5, maxDelayMs: 50, deadlineMs: 20_000 },
});
const deps: FlowDeps = {
  api,
  connector: () => erp,
  state,
  mappings: { branches: settings.shipTo },
  logger,
  clock: systemClock,
  workDir: settings.dir,
};
const job: Job =
  settings.flow === 'orders'
    ? ordersFlow.create(
        {
          name: 'orders',
          connector: 'erp',
          options: ordersFlow.options.parse({
            start_from: settings.startFrom,
            page_size: 4,
            overlap_ms: 60_000,
          }),
        },
        deps,
      )
    : orderConfirmFlow.create(
        { name: 'order-confirm', connector: 'erp', options: orderConfirmFlow.options.parse({}) },
        deps,
      );
// The kills are timed from "ready": the client's HTTP agent (its package loaded at the first use) is made first, so
// that they span the run's work rather than the loading of a package.
await api.dispatcher();
process.stdout.write('ready\n');

let quietRuns = 0;
for (let run = 0; settings.mode === 'loop' || run < 50; run += 1) {
  const result = await runJob(job, {
    signal: new AbortController().signal,
    budgetMs: 30_000,
    dryRun: false,
    logger,
    clock: systemClock,
    state,
    trigger: 'cli',
  });
  process.stdout.write(`${JSON.stringify({ outcome: result.outcome, counts: result.counts })}\n`);
  const busy = BUSY.some((key) => (result.counts[key] ?? 0) > 0);
  quietRuns = result.outcome === 'ok' && !busy ? quietRuns + 1 : 0;
  if (settings.mode === 'converge' && quietRuns >= 2) {
    await erp.close();
    await api.close();
    state.close();
    process.stdout.write('converged\n');
    process.exit(0);
  }
}
process.stdout.write('gave up\n');
process.exit(1);
