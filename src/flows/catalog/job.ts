/**
 * The catalog job: read the ERP's full snapshot, diff it against per-item hashes, refuse mass deletions, then
 * push only the changes: products, deletions, availability, prices, price-list assignments, in that order
 * (prices and availability need the product to exist).
 */
import type { CatalogSource, CustomerDirectory, ProductRead } from '../../connector-contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import {
  errorMessage,
  RunBudget,
  type Job,
  type JobContext,
  type RunResult,
  type RunTally,
} from '../../engine/index.js';
import type { CatalogApi } from './api.js';
import { assignPriceLists } from './assignments.js';
import { pushAvailability } from './availability.js';
import type { CatalogOptions } from './options.js';
import { holdDeletionsUnlessComplete } from './partial-read.js';
import { deletionGuard, planCatalog, type CatalogPlan, type CatalogSnapshot } from './plan.js';
import { forgetRemovedPrices, pushPrices } from './prices.js';
import { deleteProducts, pushProducts } from './products.js';
import type { PushContext } from './push-context.js';
import { skuOfPriceKey } from './snapshot.js';

export interface CatalogJobInput {
  readonly name: string;
  readonly api: CatalogApi;
  /** Looked up at run time, so a connector that is down fails the run, not the daemon's start. */
  readonly source: () => CatalogSource;
  readonly customers: () => CustomerDirectory | undefined;
  /** jobs.<name>.options as catalogOptionsSchema parsed them. */
  readonly options: CatalogOptions;
  readonly mappings?: Mappings;
}

export function priceListResolver(
  options: CatalogOptions,
  mappings: Mappings,
): (code: string) => string | undefined {
  const byCode = new Map<string, string>();
  for (const [apiId, code] of Object.entries(mappings[options.price_list_mapping] ?? {}))
    byCode.set(code, apiId);
  for (const [code, apiId] of Object.entries(options.price_lists)) byCode.set(code, apiId);
  return (code) => byCode.get(code);
}

export function createCatalogJob(input: CatalogJobInput): Job {
  const { options } = input;

  async function run(ctx: JobContext): Promise<RunResult> {
    // Read at each run: a config reload of the mappings applies from the next run on.
    const mappings = input.mappings ?? {};
    const priceListIdOf = priceListResolver(options, mappings);
    const counts: Record<string, number> = {};
    const push: PushContext = {
      api: input.api,
      state: ctx.state,
      job: input.name,
      budget: new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal),
      logger: ctx.logger,
      counts,
    };
    try {
      const { read, snapshot } = await readSnapshot(input.source(), options);
      const fullPlan = planCatalog(ctx.state, input.name, snapshot, priceListIdOf, {
        availability: options.availability,
        prices: options.prices,
      });
      countPlan(fullPlan, counts);
      const plan = holdDeletionsUnlessComplete(push, fullPlan, read.completeness, ctx.dryRun);
      const refused = deletionGuard(plan, {
        maxDeleteShare: options.max_delete_share,
        allowEmptySnapshot: options.allow_empty_snapshot,
        optionPath: `jobs.${input.name}.options`,
      });
      if (refused !== null) {
        ctx.logger.error({ removed: plan.products.removed.length }, refused);
        return { outcome: 'failed', counts, error: refused };
      }
      if (ctx.dryRun) {
        const tally = { unit: 'changes', delivered: planned(plan), heldBack: 0 } as const;
        return { outcome: read.completeness.complete ? 'ok' : 'partial', counts, tally };
      }
      await pushPlan(push, plan);
      const customers = options.assign_price_lists ? input.customers() : undefined;
      if (customers !== undefined && push.budget.stopReason() === null) {
        await assignPriceLists(push, {
          customers: await customers.listCustomers(),
          priceListIdOf,
          customerMapping: mappings[options.customer_mapping] ?? {},
        });
      }
      const incomplete =
        push.budget.stopReason() !== null || deadLettered(counts) > 0 || !read.completeness.complete;
      return { outcome: incomplete ? 'partial' : 'ok', counts, tally: tallyOf(counts) };
    } catch (error) {
      if (ctx.signal.aborted) return { outcome: 'partial', counts, tally: tallyOf(counts) };
      ctx.logger.error({ err: errorMessage(error) }, 'catalog run failed');
      return { outcome: 'failed', counts, error: errorMessage(error) };
    }
  }

  return { name: input.name, run };
}

async function readSnapshot(
  source: CatalogSource,
  options: CatalogOptions,
): Promise<{ read: ProductRead; snapshot: CatalogSnapshot }> {
  const [read, availability, prices] = await Promise.all([
    source.readProducts(),
    options.availability ? source.readAvailability() : Promise.resolve([]),
    options.prices ? source.readPrices() : Promise.resolve([]),
  ]);
  return { read, snapshot: { products: read.products, availability, prices } };
}

async function pushPlan(push: PushContext, plan: CatalogPlan): Promise<void> {
  await pushProducts(push, plan.upserts);
  await deleteProducts(push, plan.products.removed, plan.prices.removed);
  await pushAvailability(push, plan.availabilityCalls);
  await pushPrices(push, plan.prices.changed);
  if (push.budget.stopReason() === null) {
    const deleted = new Set(plan.products.removed);
    forgetRemovedPrices(
      push,
      plan.prices.removed.filter((key) => !deleted.has(skuOfPriceKey(key))),
    );
  }
  push.state.transaction(() => {
    for (const code of plan.unmappedPriceLists) {
      push.state.deadLetters.add(
        push.job,
        `price_list:${code}`,
        { priceList: code },
        `ERP price list ${code} has no API price list: map it in price_lists (ERP code -> API price list id)`,
      );
    }
  });
}

function countPlan(plan: CatalogPlan, counts: Record<string, number>): void {
  counts['products_in_erp'] = plan.snapshotProductCount;
  counts['products_changed'] = plan.products.changed.length;
  counts['products_removed'] = plan.products.removed.length;
  counts['availability_changed'] = plan.availability.changed.length;
  counts['prices_changed'] = plan.prices.changed.length;
  counts['price_lists_unmapped'] = plan.unmappedPriceLists.size;
}

/** The changes a dry run would send. */
function planned(plan: CatalogPlan): number {
  return (
    plan.products.changed.length +
    plan.products.removed.length +
    plan.availability.changed.length +
    plan.prices.changed.length
  );
}

/** The changes the run sent (products, availability, prices) and those it filed as dead letters. */
function tallyOf(counts: Record<string, number>): RunTally {
  const sent = [
    'products_upserted',
    'products_deleted',
    'availability_set',
    'availability_with_product',
    'prices_put',
  ];
  const delivered = sent.reduce((sum, name) => sum + (counts[name] ?? 0), 0);
  return { unit: 'changes', delivered, heldBack: deadLettered(counts) };
}

function deadLettered(counts: Record<string, number>): number {
  return (
    (counts['products_dead_lettered'] ?? 0) +
    (counts['availability_dead_lettered'] ?? 0) +
    (counts['prices_dead_lettered'] ?? 0)
  );
}
