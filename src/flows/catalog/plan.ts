/**
 * One run's plan: the ERP snapshot hashed and compared with the hashes of what the API accepted before and with
 * the pending intents of sends whose answer was never recorded (intents.ts). Pure apart from reading the hash
 * tables, so it is what the benchmark times.
 */
import type { ErpAvailability, ErpPrice, ErpProduct } from '../../connector-contract/index.js';
import type { StateStore } from '../../state/index.js';
import { ridesWithProduct } from './availability-routing.js';
import { diffAgainst, knownKeyCount, type Change, type Diff } from './diff.js';
import { loadPending } from './intents.js';
import { hashFlow } from './push-context.js';
import { loadStoredHashes } from './stored-hashes.js';
import {
  desiredAvailability,
  desiredPrices,
  desiredProducts,
  type DesiredSet,
  type MappedPrice,
} from './snapshot.js';

export interface CatalogSnapshot {
  products: readonly ErpProduct[];
  availability: readonly ErpAvailability[];
  prices: readonly ErpPrice[];
}

/** One item of a product batch: a changed product, an availability change it carries, or both. */
export interface ProductUpsert {
  sku: string;
  product: ErpProduct;
  /** Set when the product's own fields changed. */
  productHash: string | undefined;
  /** The product's intent left by an earlier send that was never answered, if any (intents.ts). */
  productPending: string | undefined;
  /** Set when this upsert also carries an availability change (its stored state). */
  availabilityState: string | undefined;
  /** The availability intent left by an earlier send that was never answered, if any. */
  availabilityPending: string | undefined;
  /** The stored hashes this upsert replaces (product, availability): part of the batch's idempotency key. */
  replaces: readonly [product: string | undefined, availability: string | undefined];
  /** The ERP's availability, always carried so an upsert never resets it. */
  available: boolean | undefined;
}

export interface CatalogPlan {
  products: Diff<ErpProduct>;
  /** Product batch items, sorted by SKU. */
  upserts: ProductUpsert[];
  /** Availability changes that need their own call (see availability.ts). */
  availabilityCalls: Change<ErpAvailability>[];
  availability: Diff<ErpAvailability>;
  prices: Diff<MappedPrice>;
  /** Products the API held (by our hashes) or may hold (by pending intents) before this run. */
  storedProductCount: number;
  /** Products in the ERP snapshot. */
  snapshotProductCount: number;
  /** ERP price list codes without an API price list. */
  unmappedPriceLists: Set<string>;
}

/** Kinds the job syncs; a kind switched off is neither diffed nor treated as removed. */
export interface PlanKinds {
  availability: boolean;
  prices: boolean;
}

const NOTHING: Diff<never> = { changed: [], removed: [] };

export function planCatalog(
  state: StateStore,
  job: string,
  snapshot: CatalogSnapshot,
  priceListIdOf: (erpCode: string) => string | undefined,
  kinds: PlanKinds = { availability: true, prices: true },
): CatalogPlan {
  const products = desiredProducts(snapshot.products);
  const storedProducts = loadStoredHashes(state, hashFlow(job, 'products'));
  const pendingProducts = loadPending(state, job, 'products');
  const productDiff = diffAgainst(products, storedProducts, pendingProducts);
  const availability = desiredAvailability(kinds.availability ? snapshot.availability : [], products);
  const availabilityDiff: Diff<ErpAvailability> = kinds.availability
    ? diffAgainst(
        availability,
        loadStoredHashes(state, hashFlow(job, 'availability')),
        loadPending(state, job, 'availability'),
      )
    : NOTHING;
  const unmappedPriceLists = new Set<string>();
  const priceDiff: Diff<MappedPrice> = kinds.prices
    ? diffAgainst(
        desiredPrices(snapshot.prices, priceListIdOf, unmappedPriceLists),
        loadStoredHashes(state, hashFlow(job, 'prices')),
        loadPending(state, job, 'prices'),
      )
    : NOTHING;
  const riding = availabilityDiff.changed.filter(ridesWithProduct);
  return {
    products: productDiff,
    upserts: productUpserts(productDiff.changed, riding, products, availability),
    availabilityCalls: availabilityDiff.changed.filter((change) => !ridesWithProduct(change)),
    availability: availabilityDiff,
    prices: priceDiff,
    storedProductCount: knownKeyCount(storedProducts, pendingProducts),
    snapshotProductCount: products.size,
    unmappedPriceLists,
  };
}

function productUpserts(
  changedProducts: readonly Change<ErpProduct>[],
  riding: readonly Change<ErpAvailability>[],
  products: DesiredSet<ErpProduct>,
  availability: DesiredSet<ErpAvailability>,
): ProductUpsert[] {
  const upserts = new Map<string, ProductUpsert>();
  for (const change of changedProducts) {
    upserts.set(change.key, {
      sku: change.key,
      product: change.source,
      productHash: change.hash,
      productPending: change.pending,
      availabilityState: undefined,
      availabilityPending: undefined,
      replaces: [change.previous, undefined],
      available: availability.sourceOf(change.key)?.available,
    });
  }
  for (const change of riding) {
    const existing = upserts.get(change.key);
    const product = existing?.product ?? products.sourceOf(change.key);
    if (product === undefined) continue;
    upserts.set(change.key, {
      sku: change.key,
      product,
      productHash: existing?.productHash,
      productPending: existing?.productPending,
      availabilityState: change.hash,
      availabilityPending: change.pending,
      replaces: [existing?.replaces[0], change.previous],
      available: change.source.available,
    });
  }
  return [...upserts.values()].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
}

/** The deletion guard: a message when the plan deletes more than allowed, else null. */
export function deletionGuard(
  plan: CatalogPlan,
  limits: { maxDeleteShare: number; allowEmptySnapshot: boolean; optionPath: string },
): string | null {
  const removed = plan.products.removed.length;
  const stored = plan.storedProductCount;
  if (removed === 0 || stored === 0) return null;
  if (plan.snapshotProductCount === 0 && !limits.allowEmptySnapshot) {
    return (
      `the ERP returned no products at all, which would delete all ${stored} synced products; nothing was sent. ` +
      `Check the connector's product query (set ${limits.optionPath}.allow_empty_snapshot to true if the catalog ` +
      'really is empty)'
    );
  }
  const share = removed / stored;
  if (share <= limits.maxDeleteShare) return null;
  const percent = (value: number): string => `${Math.round(value * 1000) / 10}%`;
  return (
    `refusing to delete ${removed} of ${stored} synced products (${percent(share)}) in one run: the limit is ` +
    `${percent(limits.maxDeleteShare)} (${limits.optionPath}.max_delete_share); nothing was sent. Check the ` +
    "connector's product query, or raise the limit if the deletions are intended"
  );
}
