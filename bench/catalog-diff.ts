/**
 * Catalog diff in isolation: 100,000 SKUs (products, availability and one price each) with 1% of the products
 * changed, against hashes stored in a real SQLite state file. Prints the median time of the flow's planCatalog
 * (load stored hashes, hash every item, compare) as a ratio of the median time to JSON-serialize the same
 * snapshot, measured in the same run, and the product batch calls the plan needs.
 *
 *   node --import tsx bench/catalog-diff.ts [--skus 100000] [--rounds 5]
 *
 * bench/catalog.ts measures the same diff inside a full run against the sandbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ErpAvailability, ErpPrice, ErpProduct } from '../src/connector-contract/index.js';
import { toBatches } from '../src/engine/index.js';
import { planCatalog, type CatalogSnapshot, type PlanKinds } from '../src/flows/catalog/index.js';
import { systemClock } from '../src/shared/clock.js';
import { openStateStore, type StateStore } from '../src/state/index.js';

const JOB = 'catalog-diff-bench';

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

function snapshot(count: number, changedEvery: number): CatalogSnapshot {
  const products: ErpProduct[] = [];
  const availability: ErpAvailability[] = [];
  const prices: ErpPrice[] = [];
  for (let i = 0; i < count; i += 1) {
    const sku = `BENCH-${String(i).padStart(6, '0')}`;
    const changed = changedEvery > 0 && i % changedEvery === 0;
    products.push({
      sku,
      name: `Bench product ${i}${changed ? ' (new pack)' : ''}`,
      unit: i % 3 === 0 ? 'kg' : 'unit',
      packageQuantity: i % 5 === 0 ? '12.000' : null,
      category: `Category ${i % 40}`,
      barcode: String(7290000000000 + i),
      vatExempt: i % 7 === 0,
      externalRef: `ERP-${i}`,
    });
    availability.push({ sku, available: i % 17 !== 5, availableUntil: null });
    prices.push({
      priceList: 'PL-STD',
      sku,
      price: `${10 + (i % 90)}.90`,
      minQuantity: null,
      validFrom: null,
    });
  }
  return { products, availability, prices };
}

const priceListIdOf = (code: string): string | undefined => (code === 'PL-STD' ? 'pl_standard' : undefined);

/** Stores the hashes a completed first sync would leave behind. */
function seedState(state: StateStore, base: CatalogSnapshot): void {
  const plan = planCatalog(state, JOB, base, priceListIdOf);
  state.transaction(() => {
    state.hashes.setMany(
      `${JOB}:products`,
      plan.products.changed.map((c) => [c.key, c.hash] as [string, string]),
    );
    state.hashes.setMany(
      `${JOB}:availability`,
      plan.availability.changed.map((c) => [c.key, c.hash] as [string, string]),
    );
    state.hashes.setMany(
      `${JOB}:prices`,
      plan.prices.changed.map((c) => [c.key, c.hash] as [string, string]),
    );
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

interface Measured {
  diffMs: number;
  serializeMs: number;
  productBatches: number;
  changedProducts: number;
}

/** Median diff and serialization times of `rounds` rounds over the same changed snapshot. */
function measure(state: StateStore, changed: CatalogSnapshot, rounds: number, kinds: PlanKinds): Measured {
  const serializeMs: number[] = [];
  const diffMs: number[] = [];
  let productBatches = 0;
  let changedProducts = 0;
  planCatalog(state, JOB, changed, priceListIdOf, kinds); // warm-up, not measured
  for (let round = 0; round < rounds; round += 1) {
    let started = performance.now();
    const json = JSON.stringify(changed);
    serializeMs.push(performance.now() - started);
    if (json.length === 0) throw new Error('empty serialization');
    started = performance.now();
    const plan = planCatalog(state, JOB, changed, priceListIdOf, kinds);
    diffMs.push(performance.now() - started);
    productBatches = toBatches(plan.upserts, 'products').length;
    changedProducts = plan.products.changed.length;
  }
  return { diffMs: median(diffMs), serializeMs: median(serializeMs), productBatches, changedProducts };
}

function report(title: string, result: Measured, rounds: number): boolean {
  const expectedBatches = Math.ceil(result.changedProducts / 500);
  const ok = result.diffMs < 1000 && result.productBatches === expectedBatches;
  console.log(title);
  console.log(
    `  baseline JSON.stringify of the snapshot: ${result.serializeMs.toFixed(1)} ms (median of ${rounds})`,
  );
  console.log(
    `  diff (planCatalog):                      ${result.diffMs.toFixed(1)} ms (median of ${rounds})`,
  );
  console.log(
    `  ratio diff / baseline:                   ${(result.diffMs / result.serializeMs).toFixed(2)}`,
  );
  console.log(
    `  product batch calls planned:             ${result.productBatches} (${result.changedProducts} changed)`,
  );
  console.log(`  target (diff < 1 s, ${expectedBatches} product batch calls): ${ok ? 'met' : 'NOT met'}`);
  return ok;
}

const skus = argument('skus', 100_000);
const rounds = argument('rounds', 5);
const dir = mkdtempSync(join(tmpdir(), 'catalog-diff-bench-'));
const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
try {
  const base = snapshot(skus, 0);
  seedState(state, base);
  const changed = snapshot(skus, 100);
  const productsOnly = measure(state, { ...changed, availability: [], prices: [] }, rounds, {
    availability: false,
    prices: false,
  });
  const full = measure(state, changed, rounds, { availability: true, prices: true });
  const productsOk = report(
    `catalog diff: ${skus} products, 1% changed (the issue's figure)`,
    productsOnly,
    rounds,
  );
  const fullOk = report(
    `catalog diff: ${skus} SKUs with availability and one price each, 1% of products changed`,
    full,
    rounds,
  );
  process.exitCode = productsOk && fullOk ? 0 : 1;
} finally {
  state.close();
  rmSync(dir, { recursive: true, force: true });
}
