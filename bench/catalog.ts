/**
 * Catalog: a 100,000-SKU ERP snapshot with 1% of the products changed since the last run. Figures: the time to
 * diff (the flow's planCatalog: hash every product, compare with the stored hashes) and the API calls the run
 * makes (counted with the client's onCall hook). Baseline: JSON-serializing the same snapshot once.
 * The previous state is made by a real first run of the flow that pushes the whole catalog to the sandbox.
 * bench/catalog-diff.ts (the catalog flow's own script: products, availability and prices, no API) runs too,
 * and its figures are reported beside these.
 */
import { join } from 'node:path';
import { completeRead, type ErpProduct } from '../src/connector-contract/index.js';
import {
  createCatalogJob,
  catalogOptionsSchema,
  planCatalog,
  type CatalogSnapshot,
} from '../src/flows/catalog/index.js';
import { systemClock } from '../src/shared/clock.js';
import { openStateStore } from '../src/state/index.js';
import { benchClient, jobContext, unthrottledSandbox } from './lib/harness.js';
import { check, measured } from './lib/result.js';
import { meets, percentile, ratio } from './lib/stats.js';
import { isolatedCatalogDiff } from './lib/catalog-diff-child.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const JOB = 'catalog-bench';
const BATCH_ROUTE = 'POST /supplier/products/batch';
const ROUNDS = 3;

export const catalog: Benchmark = {
  name: 'catalog',
  title: 'Catalog diff, 100,000 SKUs with 1% changed',
  target: 'diff < 1 s, exactly 2 product batch calls',
  run,
};

export function snapshotProducts(count: number, changedEvery = 0, generation = 0): ErpProduct[] {
  const products: ErpProduct[] = [];
  for (let i = 0; i < count; i++) {
    const changed = changedEvery > 0 && i % changedEvery === 0;
    products.push({
      sku: `BENCH-${String(i).padStart(6, '0')}`,
      name: `Bench product ${i}${changed ? ` rev ${generation}` : ''}`,
      unit: i % 3 === 0 ? 'kg' : 'unit',
      packageQuantity: i % 5 === 0 ? '12.000' : null,
      category: `Category ${i % 40}`,
      barcode: String(7290000000000 + i),
      vatExempt: i % 7 === 0,
      externalRef: `ERP-${i}`,
    });
  }
  return products;
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const skuCount = options.quick ? 5_000 : 100_000;
  const changedEvery = 100; // 1%
  const sandbox = await unthrottledSandbox();
  try {
    return await withTempDir('catalog', async (dir) => {
      const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
      const calls = new Map<string, number>();
      /** Each attempt with its status: a retried call shows up here as more than one attempt. */
      const outcomes = new Map<string, number>();
      const api = benchClient(sandbox.baseUrl, sandbox.keys.supplier, {
        onCall: (event) => {
          const key = `${event.method} ${event.route}`;
          calls.set(key, (calls.get(key) ?? 0) + 1);
          const outcome = `${key} -> ${event.status ?? event.errorCode ?? 'no response'}`;
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        },
      });
      try {
        let products: ErpProduct[] = snapshotProducts(skuCount);
        const job = createCatalogJob({
          name: JOB,
          api,
          source: () => ({
            readProducts: () => Promise.resolve(completeRead(products)),
            readAvailability: () => Promise.resolve([]),
            readPrices: () => Promise.resolve([]),
          }),
          customers: () => undefined,
          options: catalogOptionsSchema.parse({
            availability: false,
            prices: false,
            assign_price_lists: false,
          }),
        });

        options.log(`  first run: pushing ${skuCount} products to the sandbox`);
        const first = await job.run(jobContext(state, 30 * 60_000));
        if (first.outcome !== 'ok')
          throw new Error(`first catalog run ended ${first.outcome}: ${first.error ?? ''}`);
        const firstBatchCalls = calls.get(BATCH_ROUTE) ?? 0;
        calls.clear();
        outcomes.clear();

        products = snapshotProducts(skuCount, changedEvery, 1);
        const snapshot: CatalogSnapshot = { products, availability: [], prices: [] };
        const changedCount = Math.ceil(skuCount / changedEvery);

        options.log(
          `  baseline (JSON.stringify of the snapshot) and diff (planCatalog), ${ROUNDS} rounds each`,
        );
        const serializeMs: number[] = [];
        const diffMs: number[] = [];
        let jsonBytes = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const serializeStart = performance.now();
          jsonBytes = JSON.stringify(snapshot.products).length;
          serializeMs.push(performance.now() - serializeStart);
          const diffStart = performance.now();
          const plan = planCatalog(state, JOB, snapshot, () => undefined);
          diffMs.push(performance.now() - diffStart);
          if (plan.products.changed.length !== changedCount) {
            throw new Error(
              `the diff found ${plan.products.changed.length} changed products, expected ${changedCount}`,
            );
          }
        }
        const diffMedian = percentile(diffMs, 50);
        const serializeMedian = percentile(serializeMs, 50);

        const runStart = performance.now();
        const second = await job.run(jobContext(state, 30 * 60_000));
        const runMs = performance.now() - runStart;
        if (second.outcome !== 'ok')
          throw new Error(`second catalog run ended ${second.outcome}: ${second.error ?? ''}`);
        const batchCalls = calls.get(BATCH_ROUTE) ?? 0;
        options.log('  bench/catalog-diff.ts (products, availability and prices, no API)');
        const isolated = await isolatedCatalogDiff(skuCount, options.quick ? 3 : 5);
        const totalCalls = [...calls.values()].reduce((sum, n) => sum + n, 0);
        const expectedBatches = Math.ceil(changedCount / 500);

        return measured({
          name: catalog.name,
          title: options.quick ? `Catalog diff, ${skuCount} SKUs with 1% changed (quick)` : catalog.title,
          startedAt,
          figure: { label: `diff (planCatalog), median of ${ROUNDS}`, value: diffMedian, unit: 'ms' },
          baseline: {
            label: `JSON.stringify of the snapshot, median of ${ROUNDS}`,
            value: serializeMedian,
            unit: 'ms',
          },
          ratio: ratio(diffMedian, serializeMedian),
          checks: [
            check('diff < 1 s', diffMedian, 'ms', meets(diffMedian, '<', 1000)),
            check(
              `exactly ${expectedBatches} product batch calls`,
              batchCalls,
              'calls',
              batchCalls === expectedBatches,
            ),
          ],
          details: {
            'SKUs / changed': `${skuCount} / ${changedCount}`,
            'API calls in the second run': totalCalls,
            'API calls by route (second run)': JSON.stringify(Object.fromEntries(calls)),
            'attempts by route and status (second run)': JSON.stringify(Object.fromEntries(outcomes)),
            'second run counts': JSON.stringify(second.counts),
            'second run end to end (read snapshot, diff, push, save hashes) ms': runMs,
            'first run product batch calls': firstBatchCalls,
            'diff rounds (ms)': diffMs.map((ms) => ms.toFixed(0)).join(', '),
            'snapshot JSON size (bytes)': jsonBytes,
            ...isolated,
          },
          notes: [
            'Ratio = diff time / JSON serialization time of the same snapshot (lower is better): what one diff costs in units of "serialize the catalog once".',
          ],
        });
      } finally {
        await api.close();
        state.close();
      }
    });
  } finally {
    await sandbox.close();
  }
}
