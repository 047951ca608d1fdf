/** The catalog flow while the sandbox injects 5xx answers, connection resets and a 429 burst: it converges. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  jobContext,
  sandboxCatalog,
  startSupplierHarness,
  type SupplierHarness,
} from '../documents/supplier-harness.js';
import { addParts, catalogJob, erpSql, expectCatalogMatches } from './catalog-support.js';

let h: SupplierHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('catalog flow under injected faults', () => {
  it('converges to the ERP snapshot with no change lost', async () => {
    h = await startSupplierHarness();
    const harness = h;
    await addParts(harness, 700);
    const job = catalogJob(harness, harness.api);
    const converge = async (seed: number): Promise<void> => {
      await harness.sandbox.control.setFaults({
        error_rate: 0.1,
        reset_rate: 0.05,
        rate_limit_burst: 3,
        seed,
      });
      for (let attempt = 1; ; attempt += 1) {
        const result = await job.run(jobContext(harness.state));
        if (result.outcome === 'ok') break;
        if (attempt >= 25) throw new Error(`no convergence: ${JSON.stringify(result)}`);
      }
      await harness.sandbox.control.clearFaults();
    };
    await converge(3);
    await erpSql(harness, `UPDATE PARTS SET PARTDES = PARTDES || ' v2' WHERE PARTNAME LIKE 'BULK-000%'`);
    await erpSql(harness, `UPDATE PRICELIST SET PRICE = '11.11' WHERE PARTNAME LIKE 'BULK-001%'`);
    await erpSql(harness, `UPDATE WAREHOUSEBAL SET BALANCE = '0' WHERE PARTNAME LIKE 'BULK-002%'`);
    await erpSql(harness, `UPDATE PARTS SET INACTIVE = 'Y' WHERE PARTNAME LIKE 'BULK-0030%'`);
    await converge(4);
    const catalog = await sandboxCatalog(harness.sandbox);
    expect(await expectCatalogMatches(harness, catalog.products, catalog.prices)).toEqual([]);
    expect(catalog.products['BULK-00300']?.deleted_at).not.toBeNull();
    expect(catalog.products['BULK-00010']?.name).toBe('Bulk item 10 v2');
  }, 120_000);
});
