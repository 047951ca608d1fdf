/**
 * The catalog flow against the sandbox over HTTP, a real SQLite state file and the demo ERP on SQLite: only
 * changes are pushed, in as few batch calls as the contract allows; deletions are guarded; per-item failures are
 * dead-lettered and retried.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runJob } from '../../../src/engine/index.js';
import {
  jobContext,
  sandboxCatalog,
  startSupplierHarness,
  type SupplierHarness,
} from '../documents/supplier-harness.js';
import {
  addParts,
  callsOf,
  catalogJob,
  erpSql,
  expectCatalogMatches,
  recordingApi,
} from './catalog-support.js';

let h: SupplierHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function problems(harness: SupplierHarness): Promise<string[]> {
  const catalog = await sandboxCatalog(harness.sandbox);
  return expectCatalogMatches(harness, catalog.products, catalog.prices);
}

describe('catalog flow', () => {
  it('pushes everything once, then nothing, then exactly the changed SKUs in the fewest calls', async () => {
    h = await startSupplierHarness();
    await addParts(h, 1149); // 351 seeded + 1149 = 1500 products: 3 full batches
    const { api, calls } = recordingApi(h.api);
    const job = catalogJob(h, api);

    const first = await job.run(jobContext(h.state));
    expect(first.outcome).toBe('ok');
    expect(first.counts['products_upserted']).toBe(1500);
    expect(callsOf(calls, 'upsertProducts').map((c) => c.keys.length)).toEqual([500, 500, 500]);
    expect(callsOf(calls, 'putPrices').map((c) => c.keys.length)).toEqual([500, 500, 500]);
    // Availability travels inside the product upserts: no separate availability call is needed.
    expect(callsOf(calls, 'setAvailability')).toEqual([]);
    expect(await problems(h)).toEqual([]);

    calls.length = 0;
    const second = await job.run(jobContext(h.state));
    expect(second.outcome).toBe('ok');
    expect(second.counts['products_changed']).toBe(0);
    expect(calls).toEqual([]);

    // 1% of the catalog changes: 15 names, 6 prices, 4 stock levels.
    const renamed = (await erpSql(h, `SELECT PARTNAME FROM PARTS ORDER BY PARTNAME LIMIT 15 OFFSET 100`)).map(
      (r) => String(r['PARTNAME']),
    );
    await erpSql(
      h,
      `UPDATE PARTS SET PARTDES = PARTDES || ' (new pack)' WHERE PARTNAME IN (SELECT PARTNAME FROM PARTS ORDER BY PARTNAME LIMIT 15 OFFSET 100)`,
    );
    const repriced = (
      await erpSql(h, `SELECT PARTNAME FROM PRICELIST ORDER BY PARTNAME LIMIT 6 OFFSET 700`)
    ).map((r) => String(r['PARTNAME']));
    await erpSql(
      h,
      `UPDATE PRICELIST SET PRICE = '123.45' WHERE PARTNAME IN (SELECT PARTNAME FROM PRICELIST ORDER BY PARTNAME LIMIT 6 OFFSET 700)`,
    );
    const restocked = (
      await erpSql(h, `SELECT PARTNAME FROM WAREHOUSEBAL ORDER BY PARTNAME LIMIT 4 OFFSET 1200`)
    ).map((r) => String(r['PARTNAME']));
    await erpSql(
      h,
      `UPDATE WAREHOUSEBAL SET BALANCE = '0' WHERE PARTNAME IN (SELECT PARTNAME FROM WAREHOUSEBAL ORDER BY PARTNAME LIMIT 4 OFFSET 1200)`,
    );

    const third = await job.run(jobContext(h.state));
    expect(third.outcome).toBe('ok');
    // Stock-outs without a return date ride in the same product batch as the renamed products.
    expect(callsOf(calls, 'upsertProducts')).toEqual([
      { op: 'upsertProducts', keys: [...renamed, ...restocked].sort() },
    ]);
    expect(callsOf(calls, 'putPrices')).toEqual([
      { op: 'putPrices', keys: [...repriced].sort().map((sku) => `pl_standard/${sku}`) },
    ]);
    expect(callsOf(calls, 'setAvailability')).toEqual([]);
    expect(await problems(h)).toEqual([]);

    // A return date needs the availability call; back in stock rides in a product batch again.
    calls.length = 0;
    const [outUntil] = restocked;
    await erpSql(h, `UPDATE WAREHOUSEBAL SET AVAILUNTIL = '2031-01-15' WHERE PARTNAME = :sku`, {
      sku: outUntil ?? '',
    });
    await job.run(jobContext(h.state));
    expect(calls).toEqual([{ op: 'setAvailability', keys: [outUntil] }]);
    expect((await sandboxCatalog(h.sandbox)).products[outUntil ?? '']?.available_until).toBe('2031-01-15');
    calls.length = 0;
    await erpSql(h, `UPDATE WAREHOUSEBAL SET BALANCE = '5', AVAILUNTIL = NULL WHERE PARTNAME = :sku`, {
      sku: outUntil ?? '',
    });
    await job.run(jobContext(h.state));
    expect(calls).toEqual([{ op: 'upsertProducts', keys: [outUntil] }]);
    const back = (await sandboxCatalog(h.sandbox)).products[outUntil ?? ''];
    expect([back?.available, back?.available_until]).toEqual([true, null]);

    // 501 changed products take exactly two batch calls.
    calls.length = 0;
    await erpSql(
      h,
      `UPDATE PARTS SET PARTDES = PARTDES || '*' WHERE PARTNAME IN (SELECT PARTNAME FROM PARTS ORDER BY PARTNAME LIMIT 501)`,
    );
    await job.run(jobContext(h.state));
    expect(callsOf(calls, 'upsertProducts').map((c) => c.keys.length)).toEqual([500, 1]);
  });

  it('refuses to delete more than the allowed share, and never wipes the catalog on an empty snapshot', async () => {
    h = await startSupplierHarness();
    await addParts(h, 149); // 500 products
    const { api, calls } = recordingApi(h.api);
    const job = catalogJob(h, api, { max_delete_share: 0.2 });
    await job.run(jobContext(h.state));

    await erpSql(
      h,
      `UPDATE PARTS SET INACTIVE = 'Y' WHERE PARTNAME IN (SELECT PARTNAME FROM PARTS ORDER BY PARTNAME LIMIT 150)`,
    );
    calls.length = 0;
    const refused = await job.run(jobContext(h.state));
    expect(refused.outcome).toBe('failed');
    expect(refused.error).toMatch(/refusing to delete 150 of 500 synced products \(30%\).*max_delete_share/);
    expect(calls).toEqual([]);
    const untouched = await sandboxCatalog(h.sandbox);
    expect(Object.values(untouched.products).filter((p) => p.deleted_at !== null)).toEqual([]);

    await erpSql(h, `UPDATE PARTS SET INACTIVE = 'N'`);
    await erpSql(h, `UPDATE PARTS SET INACTIVE = 'Y' WHERE PARTNAME IN ('BULK-00000', 'BULK-00001')`);
    const deleted = await job.run(jobContext(h.state));
    expect(deleted.outcome).toBe('ok');
    expect(callsOf(calls, 'deleteProduct').map((c) => c.keys[0])).toEqual(['BULK-00000', 'BULK-00001']);
    const catalog = await sandboxCatalog(h.sandbox);
    expect(catalog.products['BULK-00000']?.deleted_at).not.toBeNull();
    expect(catalog.products['BULK-00002']?.deleted_at).toBeNull();

    await erpSql(h, `UPDATE PARTS SET INACTIVE = 'Y'`);
    calls.length = 0;
    const wipe = await catalogJob(h, api, { max_delete_share: 1 }).run(jobContext(h.state));
    expect(wipe.outcome).toBe('failed');
    expect(wipe.error).toMatch(/ERP returned no products at all/);
    expect(calls).toEqual([]);
  });

  it('dead-letters items the API refuses, keeps their old hash and retries them until fixed', async () => {
    h = await startSupplierHarness();
    const { api, calls } = recordingApi(h.api);
    const job = catalogJob(h, api);
    await job.run(jobContext(h.state));

    const [badName, badPrice, fine] = (
      await erpSql(h, `SELECT PARTNAME FROM PARTS ORDER BY PARTNAME LIMIT 3 OFFSET 40`)
    ).map((r) => String(r['PARTNAME']));
    await erpSql(h, `UPDATE PARTS SET PARTDES = :name WHERE PARTNAME = :sku`, {
      name: 'x'.repeat(201),
      sku: badName,
    });
    await erpSql(h, `UPDATE PARTS SET PARTDES = 'Renamed' WHERE PARTNAME = :sku`, { sku: fine });
    await erpSql(h, `UPDATE PRICELIST SET PRICE = '0.00' WHERE PARTNAME = :sku`, { sku: badPrice });
    const before = await sandboxCatalog(h.sandbox);

    const run = await job.run(jobContext(h.state));
    expect(run.outcome).toBe('partial');
    expect(run.counts['products_upserted']).toBe(1);
    expect(run.counts['products_dead_lettered']).toBe(1);
    expect(run.counts['prices_dead_lettered']).toBe(1);
    const letters = new Map(
      h.state.deadLetters.list({ flow: 'catalog' }).map((l) => [l.recordKey, l.reason]),
    );
    expect(letters.get(`product:${badName}`)).toMatch(/name/);
    expect(letters.get(`price:pl_standard:${badPrice}`)).toMatch(/price/);
    const after = await sandboxCatalog(h.sandbox);
    expect(after.products[badName ?? '']?.name).toBe(before.products[badName ?? '']?.name);
    expect(after.products[fine ?? '']?.name).toBe('Renamed');

    // Still broken: tried again (the old hash was kept), still a dead letter.
    calls.length = 0;
    const again = await job.run(jobContext(h.state));
    expect(callsOf(calls, 'upsertProducts')).toEqual([{ op: 'upsertProducts', keys: [badName] }]);
    expect(again.counts['products_dead_lettered']).toBe(1);

    await erpSql(h, `UPDATE PARTS SET PARTDES = 'Fixed name' WHERE PARTNAME = :sku`, { sku: badName });
    await erpSql(h, `UPDATE PRICELIST SET PRICE = '4.20' WHERE PARTNAME = :sku`, { sku: badPrice });
    const fixed = await job.run(jobContext(h.state));
    expect(fixed.outcome).toBe('ok');
    expect(h.state.deadLetters.get('catalog', `product:${badName}`)?.status).toBe('resolved');
    expect(h.state.deadLetters.get('catalog', `price:pl_standard:${badPrice}`)?.status).toBe('resolved');
    expect(await problems(h)).toEqual([]);
  });

  it('ends failed when every change was held back, and the run is no success (docs/operations.md, "Run outcomes")', async () => {
    h = await startSupplierHarness();
    const job = catalogJob(h, h.api);
    expect((await runJob(job, jobContext(h.state))).outcome).toBe('ok');
    const [badName, badPrice] = (
      await erpSql(h, `SELECT PARTNAME FROM PARTS ORDER BY PARTNAME LIMIT 2 OFFSET 40`)
    ).map((r) => String(r['PARTNAME']));
    await erpSql(h, `UPDATE PARTS SET PARTDES = :name WHERE PARTNAME = :sku`, {
      name: 'x'.repeat(201),
      sku: badName,
    });
    await erpSql(h, `UPDATE PRICELIST SET PRICE = '0.00' WHERE PARTNAME = :sku`, { sku: badPrice });

    const run = await runJob(job, jobContext(h.state));
    expect(run).toMatchObject({ outcome: 'failed', counts: { delivered: 0, held_back: 2 } });
    expect(run.error).toMatch(/^delivered nothing: all 2 changes held back/);
    const [record] = h.state.runs.recent('catalog', 1);
    expect(record).toMatchObject({ outcome: 'failed', counts: { delivered: 0, held_back: 2 } });
    expect(h.state.runs.last('catalog', ['ok', 'partial'])?.id).not.toBe(record?.id);
  });

  it('a dry run reports the changes and sends nothing', async () => {
    h = await startSupplierHarness();
    const { api, calls } = recordingApi(h.api);
    const job = catalogJob(h, api);
    const preview = await job.run(jobContext(h.state, { dryRun: true }));
    expect(preview.outcome).toBe('ok');
    expect(preview.counts['products_changed']).toBe(351);
    expect(calls).toEqual([]);
    expect(h.state.hashes.count('catalog:products')).toBe(0);
  });

  it('assigns price lists to linked buyers from the ERP customer records, once', async () => {
    h = await startSupplierHarness();
    const { api, calls } = recordingApi(h.api);
    const job = catalogJob(h, api);
    await job.run(jobContext(h.state));
    expect(callsOf(calls, 'assignBuyer')).toEqual([]); // the demo buyer already has the standard list

    await erpSql(h, `UPDATE CUSTOMERS SET PLNAME = 'PL-EVT' WHERE CUSTNAME = 'C-10042'`);
    calls.length = 0;
    await job.run(jobContext(h.state));
    expect(callsOf(calls, 'assignBuyer')).toEqual([{ op: 'assignBuyer', keys: ['pl_events/byr_demo'] }]);
    const { priceLists } = await sandboxCatalog(h.sandbox);
    expect(priceLists['pl_events']?.buyer_ids).toContain('byr_demo');
    expect(priceLists['pl_standard']?.buyer_ids).not.toContain('byr_demo');

    calls.length = 0;
    await job.run(jobContext(h.state));
    expect(callsOf(calls, 'assignBuyer')).toEqual([]);
  });
});
