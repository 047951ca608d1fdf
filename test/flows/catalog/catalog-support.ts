/** Shared pieces of the catalog flow's tests: a job on the demo ERP, an API that records its writes, ERP edits. */
import type { SqlParams } from '../../../src/kit/sql/driver.js';
import type { ApiClient } from '../../../src/client/index.js';
import type { CatalogSource } from '../../../src/connector-contract/index.js';
import {
  createCatalogJob,
  catalogOptionsSchema,
  type CatalogApi,
  type CatalogOptionsInput,
} from '../../../src/flows/catalog/index.js';
import type { SupplierHarness } from '../documents/supplier-harness.js';

export interface RecordedCall {
  op: 'upsertProducts' | 'deleteProduct' | 'setAvailability' | 'putPrices' | 'assignBuyer';
  keys: string[];
}

/** The real client, with every write recorded (which call, which SKUs) before it is sent. */
export function recordingApi(api: ApiClient): { api: CatalogApi; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  return {
    calls,
    api: {
      supplierBuyers: { list: (options) => api.supplierBuyers.list(options) },
      catalog: {
        upsertProducts(items, options) {
          calls.push({ op: 'upsertProducts', keys: items.map((item) => item.sku) });
          return api.catalog.upsertProducts(items, options);
        },
        deleteProduct(sku, options) {
          calls.push({ op: 'deleteProduct', keys: [sku] });
          return api.catalog.deleteProduct(sku, options);
        },
        setAvailability(sku, body, options) {
          calls.push({ op: 'setAvailability', keys: [sku] });
          return api.catalog.setAvailability(sku, body, options);
        },
      },
      priceLists: {
        putPrices(id, items, options) {
          calls.push({ op: 'putPrices', keys: items.map((item) => `${id}/${item.sku}`) });
          return api.priceLists.putPrices(id, items, options);
        },
        assignBuyer(id, body, options) {
          calls.push({ op: 'assignBuyer', keys: [`${id}/${body.buyer_id}`] });
          return api.priceLists.assignBuyer(id, body, options);
        },
      },
    },
  };
}

export const DEMO_PRICE_LISTS = { 'PL-STD': 'pl_standard', 'PL-EVT': 'pl_events' };

export function catalogSource(harness: SupplierHarness): CatalogSource {
  const source = harness.connector.capabilities.catalogSource;
  if (source === undefined) throw new Error('the demo ERP offers no catalog source');
  return source;
}

export function catalogJob(harness: SupplierHarness, api: CatalogApi, options: CatalogOptionsInput = {}) {
  return createCatalogJob({
    name: 'catalog',
    api,
    source: () => catalogSource(harness),
    customers: () => harness.connector.capabilities.customerDirectory,
    options: catalogOptionsSchema.parse({ price_lists: DEMO_PRICE_LISTS, ...options }),
  });
}

export async function erpSql(harness: SupplierHarness, sql: string, params: SqlParams = {}) {
  return (await harness.erp.driver.query(sql, params)).rows;
}

/** Adds `count` parts to the ERP (with a price and stock), to make the catalog larger than one batch. */
export async function addParts(harness: SupplierHarness, count: number, prefix = 'BULK'): Promise<void> {
  await harness.erp.driver.transaction(async (tx) => {
    for (let i = 0; i < count; i += 1) {
      const sku = `${prefix}-${String(i).padStart(5, '0')}`;
      await tx.query(
        `INSERT INTO PARTS (PARTNAME, PARTDES, UNIT, PACKQTY, FAMILY, BARCODE, VATFREE, UDATE)
         VALUES (:sku, :name, 'unit', '1', 'BULK', NULL, 'N', date('now'))`,
        { sku, name: `Bulk item ${i}` },
      );
      await tx.query(`INSERT INTO PRICELIST (PLNAME, PARTNAME, PRICE) VALUES ('PL-STD', :sku, '9.90')`, {
        sku,
      });
      await tx.query(`INSERT INTO WAREHOUSEBAL (PARTNAME, BALANCE) VALUES (:sku, '10')`, { sku });
    }
  });
}

export function callsOf(calls: readonly RecordedCall[], op: RecordedCall['op']): RecordedCall[] {
  return calls.filter((call) => call.op === op);
}

/** The ERP's snapshot against the sandbox's catalog: every live SKU present with the ERP's fields, no others. */
export async function expectCatalogMatches(
  harness: SupplierHarness,
  products: Record<string, { name: string; unit: string; available: boolean; deleted_at: string | null }>,
  prices: Record<string, { sku: string; price: string }[]>,
): Promise<string[]> {
  const source = catalogSource(harness);
  const problems: string[] = [];
  const { products: erpProducts } = await source.readProducts();
  const availability = new Map((await source.readAvailability()).map((row) => [row.sku, row.available]));
  const live = new Set(erpProducts.map((product) => product.sku));
  for (const product of erpProducts) {
    const api = products[product.sku];
    if (api === undefined || api.deleted_at !== null) problems.push(`${product.sku} missing`);
    else if (api.name !== product.name || api.unit !== product.unit) problems.push(`${product.sku} differs`);
    else if (api.available !== availability.get(product.sku))
      problems.push(`${product.sku} availability differs`);
  }
  for (const [sku, product] of Object.entries(products)) {
    if (product.deleted_at === null && sku.startsWith('BULK') && !live.has(sku))
      problems.push(`${sku} not deleted`);
  }
  for (const price of await source.readPrices()) {
    if (price.priceList !== 'PL-STD') continue;
    // The API keeps dated entries side by side: the ERP's current price must be among them.
    const entries = (prices['pl_standard'] ?? []).filter((entry) => entry.sku === price.sku);
    if (!entries.some((entry) => entry.price === price.price))
      problems.push(`price ${price.sku} not ${price.price}`);
  }
  return problems;
}
