/**
 * The ERP's full catalog snapshot as the API should hold it: one entry per SKU (and per price key) with a
 * fingerprint of exactly the fields that are sent, compared with the one stored when the API accepted them.
 */
import { hash } from 'node:crypto';
import type { AvailabilityBody, PriceEntryBody, ProductBatchItemBody } from '../../client/index.js';
import type { ErpAvailability, ErpPrice, ErpProduct } from '../../connector-contract/index.js';

/**
 * Desired entries in parallel arrays rather than one object each: at 100,000 SKUs per kind the garbage collector,
 * not the hashing, is what a diff pays for. A key listed twice keeps its last entry.
 */
export class DesiredSet<S> {
  readonly keys: string[] = [];
  readonly hashes: string[] = [];
  readonly sources: S[] = [];
  readonly #index = new Map<string, number>();

  add(key: string, hash: string, source: S): void {
    const at = this.#index.get(key);
    if (at !== undefined) {
      this.hashes[at] = hash;
      this.sources[at] = source;
      return;
    }
    this.#index.set(key, this.keys.length);
    this.keys.push(key);
    this.hashes.push(hash);
    this.sources.push(source);
  }

  get size(): number {
    return this.keys.length;
  }

  has(key: string): boolean {
    return this.#index.has(key);
  }

  sourceOf(key: string): S | undefined {
    const at = this.#index.get(key);
    return at === undefined ? undefined : this.sources[at];
  }
}

const SEPARATOR = '\u001f';
const ABSENT = '\u0002';

/**
 * 128 bits of SHA-256 over the fields, unambiguous thanks to the separator and the marker for absent values.
 * (Storing short field strings as they are, to skip the hashing, measured no faster: the state reads grow.)
 */
export function fingerprint(fields: readonly (string | boolean | null)[]): string {
  let text = '';
  for (const field of fields) text += (field === null ? ABSENT : String(field)) + SEPARATOR;
  return hash('sha256', text, 'base64url').slice(0, 22);
}

/** `available` is left out: availability has its own hash and call, so a stock change is not a product change. */
export function desiredProducts(products: readonly ErpProduct[]): DesiredSet<ErpProduct> {
  const desired = new DesiredSet<ErpProduct>();
  for (const product of products) {
    const hash = fingerprint([
      product.name,
      product.unit,
      product.packageQuantity,
      product.category,
      product.barcode,
      product.vatExempt,
      product.externalRef,
    ]);
    desired.add(product.sku, hash, product);
  }
  return desired;
}

/**
 * Availability is stored as its plain state rather than a hash ("in", "out", "out:<until>"): it is short, and the
 * push needs to know whether the API still holds a return date (see availability.ts).
 */
export function availabilityState(row: ErpAvailability): string {
  if (row.available) return 'in';
  return row.availableUntil === null ? 'out' : `out:${row.availableUntil}`;
}

/** Availability of the SKUs in `products` (a row for any other SKU has no product to belong to). */
export function desiredAvailability(
  rows: readonly ErpAvailability[],
  products: DesiredSet<ErpProduct>,
): DesiredSet<ErpAvailability> {
  const desired = new DesiredSet<ErpAvailability>();
  for (const row of rows) if (products.has(row.sku)) desired.add(row.sku, availabilityState(row), row);
  return desired;
}

export interface MappedPrice {
  priceListId: string;
  price: ErpPrice;
}

/**
 * Price keys are list, SKU and minimum quantity; valid_from is content (a new date replaces the price). The
 * stored value is the content itself (price and date): shorter than a hash and cheaper to compute.
 */
export function priceKey(priceListId: string, sku: string, minQuantity: string | null): string {
  return `${priceListId}${SEPARATOR}${sku}${SEPARATOR}${minQuantity ?? ''}`;
}

export function skuOfPriceKey(key: string): string {
  return key.split(SEPARATOR)[1] ?? '';
}

export function desiredPrices(
  rows: readonly ErpPrice[],
  priceListIdOf: (erpCode: string) => string | undefined,
  unmapped: Set<string>,
): DesiredSet<MappedPrice> {
  const desired = new DesiredSet<MappedPrice>();
  for (const price of rows) {
    const priceListId = priceListIdOf(price.priceList);
    if (priceListId === undefined) {
      unmapped.add(price.priceList);
      continue;
    }
    const key = priceKey(priceListId, price.sku, price.minQuantity);
    desired.add(key, `${price.price}${SEPARATOR}${price.validFrom ?? ''}`, { priceListId, price });
  }
  return desired;
}

export function productBody(product: ErpProduct, available: boolean | undefined): ProductBatchItemBody {
  return {
    sku: product.sku,
    name: product.name,
    unit: product.unit,
    ...(product.packageQuantity === null ? {} : { package_quantity: product.packageQuantity }),
    category: product.category,
    barcode: product.barcode,
    vat_exempt: product.vatExempt,
    external_ref: product.externalRef,
    // Carried so that an upsert never flips availability back to the API's default (true).
    ...(available === undefined ? {} : { available }),
  };
}

export function availabilityBody(row: ErpAvailability): AvailabilityBody {
  return {
    available: row.available,
    ...(row.available || row.availableUntil === null ? {} : { until: row.availableUntil }),
  };
}

export function priceBody(price: ErpPrice): PriceEntryBody {
  return {
    sku: price.sku,
    price: price.price,
    ...(price.minQuantity === null ? {} : { min_quantity: price.minQuantity }),
    ...(price.validFrom === null ? {} : { valid_from: price.validFrom }),
  };
}
