/**
 * Never delete from a partial read, per connector: a catalog read cut short (a capped SQL statement, a products.csv
 * still being written, a Priority result cap read without paging) removes nothing from the API, marks the run
 * partial or failed, counts the held deletions and leaves one dead letter saying why. Against the sandbox over HTTP,
 * a real SQLite state file, the demo ERP on SQLite, real CSV files and the Priority emulator.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqlCatalogSource } from '../../../connectors/sql/index.js';
import { demoErpStatements } from '../../../connectors/sql/demo-erp/statements.js';
import { csvErpConnectorDefinition } from '../../../connectors/csv-erp/index.js';
import type { CatalogSource } from '../../../src/connector-contract/index.js';
import { catalogOptionsSchema, createCatalogJob } from '../../../src/flows/catalog/index.js';
import { PluginRegistry } from '../../../src/plugin/index.js';
import { openOdata, type OdataFixture } from '../../connectors/odata/fixture.js';
import {
  jobContext,
  sandboxCatalog,
  startSupplierHarness,
  type SupplierHarness,
} from '../documents/supplier-harness.js';
import { callsOf, DEMO_PRICE_LISTS, recordingApi } from './catalog-support.js';

let h: SupplierHarness | undefined;
let odata: OdataFixture | undefined;
afterEach(async () => {
  await odata?.close();
  await h?.close();
  h = odata = undefined;
});

function jobOver(harness: SupplierHarness, source: () => CatalogSource) {
  const { api, calls } = recordingApi(harness.api);
  const job = createCatalogJob({
    name: 'catalog',
    api,
    source,
    customers: () => undefined,
    options: catalogOptionsSchema.parse({ price_lists: DEMO_PRICE_LISTS, max_delete_share: 1 }),
  });
  return { job, calls };
}

async function deletedSkus(harness: SupplierHarness): Promise<string[]> {
  const { products } = await sandboxCatalog(harness.sandbox);
  return Object.entries(products)
    .filter(([, product]) => product.deleted_at !== null)
    .map(([sku]) => sku);
}

const heldLetter = (harness: SupplierHarness) =>
  harness.state.deadLetters.list({}).filter((letter) => letter.recordKey === 'catalog:deletions_held');

describe('a catalog read cut short removes nothing', () => {
  it('sql: a products statement returning fewer rows than products_count counts', async () => {
    h = await startSupplierHarness();
    const harness = h;
    const driver = harness.erp.driver;
    let capped = false;
    const source = () => {
      const catalog = demoErpStatements.catalog ?? { products: '' };
      const products = capped ? `${catalog.products} LIMIT 300` : catalog.products;
      return new SqlCatalogSource(driver, { ...catalog, products }, 'erp');
    };
    const { job, calls } = jobOver(harness, source);
    expect((await job.run(jobContext(harness.state))).outcome).toBe('ok');

    capped = true;
    calls.length = 0;
    const cut = await job.run(jobContext(harness.state));
    expect(cut.outcome).toBe('partial');
    expect(cut.counts['deletions_held']).toBeGreaterThan(0);
    expect(cut.counts['products_removed']).toBe(0);
    expect(callsOf(calls, 'deleteProduct')).toEqual([]);
    expect(await deletedSkus(harness)).toEqual([]);
    expect(heldLetter(harness).map((letter) => letter.reason)).toEqual([
      expect.stringMatching(/returned 300 rows but catalog\.products_count counts \d+.*TOP\/LIMIT/),
    ]);

    capped = false;
    await driver.query(`UPDATE PARTS SET INACTIVE = 'Y' WHERE PARTNAME = (SELECT MIN(PARTNAME) FROM PARTS)`);
    const whole = await job.run(jobContext(harness.state));
    expect(whole.outcome).toBe('ok');
    expect(callsOf(calls, 'deleteProduct')).toHaveLength(1);
    expect(heldLetter(harness).filter((letter) => letter.status === 'open')).toEqual([]);
  });

  it('csv-erp: a products.csv that ends in the middle of a line', async () => {
    h = await startSupplierHarness();
    const harness = h;
    const dir = await mkdtemp(join(tmpdir(), 'partial-csv-'));
    try {
      await mkdir(join(dir, 'in'));
      const connector = await new PluginRegistry()
        .register(csvErpConnectorDefinition)
        .createConnector('csv-erp', { in_dir: 'in', out_dir: 'out' }, { name: 'erp', baseDir: dir });
      const source = connector.capabilities.catalogSource;
      if (source === undefined) throw new Error('csv-erp offers no catalog source');
      const rows = Array.from({ length: 40 }, (_, i) => `CSV-${String(i).padStart(3, '0')},Item ${i},unit`);
      const products = ['sku,name,unit', ...rows].join('\n');
      await writeFile(join(dir, 'in', 'products.csv'), `${products}\n`);
      const { job, calls } = jobOver(harness, () => source);
      expect((await job.run(jobContext(harness.state))).outcome).toBe('ok');

      // Cut inside the 21st product's line, as a copy interrupted there would leave it: that record is not read.
      await writeFile(join(dir, 'in', 'products.csv'), products.slice(0, products.indexOf('CSV-020') + 12));
      calls.length = 0;
      const cut = await job.run(jobContext(harness.state));
      expect(cut.outcome).toBe('partial');
      expect(cut.counts['deletions_held']).toBe(20);
      expect(cut.counts['products_in_erp']).toBe(20);
      expect(callsOf(calls, 'deleteProduct')).toEqual([]);
      expect(await deletedSkus(harness)).toEqual([]);
      expect(heldLetter(harness)[0]?.reason).toMatch(/products\.csv ends in the middle of a line/);
      await connector.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('odata (Priority): 2,300 parts arrive whole by $top/$skip; read by links only, the cap fails the read', async () => {
    h = await startSupplierHarness();
    const harness = h;
    odata = await openOdata('priority-rest');
    const parts = Array.from({ length: 2300 }, (_, i) => ({
      PARTNAME: `PR-${String(i).padStart(5, '0')}`,
      PARTDES: `Part ${i}`,
      UNITNAME: 'unit',
    }));
    odata.emulator.store.seed('LOGPART', parts);
    const source = odata.connector.capabilities.catalogSource;
    if (source === undefined) throw new Error('the Priority preset offers no catalog source');
    const { job, calls } = jobOver(harness, () => source);
    const whole = await job.run(jobContext(harness.state));
    expect(whole.outcome).toBe('ok');
    expect(whole.counts['products_in_erp']).toBe(odata.emulator.store.query('LOGPART', undefined).length);
    expect(whole.counts['products_in_erp']).toBeGreaterThan(2300);
    const { products } = await sandboxCatalog(harness.sandbox);
    expect(parts.filter((part) => products[part.PARTNAME] === undefined)).toEqual([]);

    // The same service read the way the connector used to: one request, links only. 2,000 of 2,300 come back.
    const linksOnly = await openOdata('priority-rest', {
      block: { entities: { paging: { mode: 'next_link', max_result_lines: 2000 } } },
    });
    try {
      linksOnly.emulator.store.seed('LOGPART', parts);
      const capped = linksOnly.connector.capabilities.catalogSource;
      if (capped === undefined) throw new Error('no catalog source');
      calls.length = 0;
      const cut = await jobOver(harness, () => capped).job.run(jobContext(harness.state));
      expect(cut.outcome).toBe('failed');
      expect(cut.error).toMatch(/2000 entities without a paging link.*more may exist/);
      expect(await deletedSkus(harness)).toEqual([]);
    } finally {
      await linksOnly.close();
    }
  });
});
