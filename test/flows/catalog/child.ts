/**
 * Child process for the catalog kill -9 test: runs the catalog job in a loop against the parent's sandbox and demo
 * ERP until a run finds no change. Every write is appended to a send log (with this process id) before it is sent,
 * so the parent can tell a repeat after a crash from a repeat within one life. With killAtStep it kills itself
 * with SIGKILL at that step (before and after each write call); with killAfterAnswerFor it kills itself right
 * after the API answered the product batch carrying that SKU, before the answer is recorded (the window of a
 * product the API accepted but the state does not know); otherwise the parent kills it at a random moment.
 */
import { appendFileSync } from 'node:fs';
import { createApiClient } from '../../../src/client/index.js';
import type { CatalogApi } from '../../../src/flows/catalog/api.js';
import { createCatalogJob } from '../../../src/flows/catalog/job.js';
import { catalogOptionsSchema } from '../../../src/flows/catalog/options.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openPgStateStore, openStateStore } from '../../../src/state/index.js';
import { SqliteDriver } from '../../../src/kit/sql/sqlite-driver.js';
import { SqlCatalogSource } from '../../../connectors/sql/erp-catalog.js';
import { demoErpStatements } from '../../../connectors/sql/demo-erp/statements.js';
import { jobContext } from '../job-context.js';

interface ChildArgs {
  baseUrl: string;
  apiKey: string;
  stateFile: string;
  /** A PostgreSQL state instead of the file. */
  stateUrl?: string;
  erpFile: string;
  sendLog: string;
  killAtStep?: number;
  killAfterAnswerFor?: string;
}

export interface SendLogEntry {
  pid: number;
  op: string;
  key: string;
  content: string;
}

const args = JSON.parse(process.env['CATALOG_CHILD'] ?? '{}') as ChildArgs;
let step = 0;
function point(): void {
  step += 1;
  if (step === args.killAtStep) process.kill(process.pid, 'SIGKILL');
}
function logSends(entries: readonly Omit<SendLogEntry, 'pid'>[]): void {
  appendFileSync(
    args.sendLog,
    entries.map((entry) => `${JSON.stringify({ pid: process.pid, ...entry })}\n`).join(''),
  );
}
async function around<T>(entries: readonly Omit<SendLogEntry, 'pid'>[], call: () => Promise<T>): Promise<T> {
  point();
  logSends(entries);
  const result = await call();
  point();
  return result;
}

const statements = demoErpStatements.catalog;
if (statements === undefined) throw new Error('demo statements');
const driver = new SqliteDriver(args.erpFile);
const source = new SqlCatalogSource(driver, statements, 'erp');
const client = createApiClient({
  baseUrl: args.baseUrl,
  apiKey: args.apiKey,
  retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 100, deadlineMs: 20_000 },
  rateLimit: { perMinute: 100_000 },
});
const api: CatalogApi = {
  supplierBuyers: client.supplierBuyers,
  catalog: {
    upsertProducts: async (items, options) => {
      const response = await around(
        items.map((item) => ({ op: 'product', key: item.sku, content: JSON.stringify(item) })),
        () => client.catalog.upsertProducts(items, options),
      );
      if (items.some((item) => item.sku === args.killAfterAnswerFor)) process.kill(process.pid, 'SIGKILL');
      return response;
    },
    deleteProduct: (sku, options) =>
      around([{ op: 'delete', key: sku, content: '' }], () => client.catalog.deleteProduct(sku, options)),
    setAvailability: (sku, body, options) =>
      around([{ op: 'availability', key: sku, content: JSON.stringify(body) }], () =>
        client.catalog.setAvailability(sku, body, options),
      ),
  },
  priceLists: {
    putPrices: (id, items, options) =>
      around(
        items.map((item) => ({ op: 'price', key: `${id}/${item.sku}`, content: JSON.stringify(item) })),
        () => client.priceLists.putPrices(id, items, options),
      ),
    assignBuyer: (id, body, options) => client.priceLists.assignBuyer(id, body, options),
  },
};

const state =
  args.stateUrl === undefined
    ? openStateStore({ file: args.stateFile, clock: systemClock })
    : openPgStateStore({ url: args.stateUrl, clock: systemClock });
process.stdout.write(`started pid=${process.pid}\n`);
const job = createCatalogJob({
  name: 'catalog',
  api,
  source: () => source,
  customers: () => undefined,
  options: catalogOptionsSchema.parse({ price_lists: { 'PL-STD': 'pl_standard' }, max_delete_share: 0.5 }),
});
for (let run = 0; run < 20; run += 1) {
  const result = await job.run(jobContext(state, { budgetMs: 60_000, trigger: 'schedule' }));
  const changes =
    (result.counts['products_changed'] ?? 0) +
    (result.counts['products_removed'] ?? 0) +
    (result.counts['availability_changed'] ?? 0) +
    (result.counts['prices_changed'] ?? 0);
  if (result.outcome === 'ok' && changes === 0) {
    process.stdout.write(`converged ${JSON.stringify(result.counts)}\n`);
    state.close();
    await client.close();
    await driver.close();
    process.exit(0);
  }
  // Every run that did not converge says why, so a final run that never converges shows its history.
  process.stdout.write(
    `run ${run}: ${result.outcome} ${JSON.stringify(result.counts)}${result.error === undefined ? '' : ` ${result.error}`}\n`,
  );
}
process.stdout.write('not converged\n');
process.exit(1);
