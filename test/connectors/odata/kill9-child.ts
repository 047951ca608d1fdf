/**
 * Child process of the odata kill -9 test: runs the orders job against the parent's sandbox, on a real state file
 * and the odata connector over the parent's emulator (the connector block, with its preset and write mode, comes
 * from the parent), until killed.
 * Usage: node kill9-child.js '<json settings>'. Modes: "loop" runs forever (the parent kills it); "converge" runs
 * until two runs in a row find nothing to do, prints "converged" and exits 0. Each run's counts are one JSON line.
 */
import path from 'node:path';
import { pino } from 'pino';
import { createApiClient } from '../../../src/client/index.js';
import { odataConfigSchema, odataConnectorDefinition } from '../../../connectors/odata/index.js';
import type { FlowDeps } from '../../../src/plugin/index.js';
import { runJob } from '../../../src/engine/index.js';
import { ordersFlow } from '../../../src/flows/orders/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';

interface ChildSettings {
  baseUrl: string;
  apiKey: string;
  /** The odata connector's block: preset, service_url, auth, entities. */
  block: Record<string, unknown>;
  dir: string;
  startFrom: string;
  mode: 'loop' | 'converge';
  shipTo: Record<string, string>;
}

const BUSY = ['written', 'recovered', 'updated', 'cancelled', 'acknowledged', 'replayed'];

const settings = JSON.parse(process.argv[2] ?? '{}') as ChildSettings;
const logger = pino({ level: 'silent' });
const state = openStateStore({ file: path.join(settings.dir, 'orders.db'), clock: systemClock });
state.runs.closeInterrupted();
const erp = await odataConnectorDefinition.create(
  odataConfigSchema.parse({ ...settings.block, timeout: 2_000 }),
  { name: 'erp', baseDir: settings.dir },
);
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
const job = ordersFlow.create(
  {
    name: 'orders',
    connector: 'erp',
    options: ordersFlow.options.parse({ start_from: settings.startFrom, page_size: 4, overlap_ms: 60_000 }),
  },
  deps,
);
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
