/**
 * Deterministic Idempotency-Keys of the catalog flow, against the sandbox over HTTP (its idempotency store is the
 * contract's: same key and body replays, different body under one key is 409). A leader frozen with a product
 * batch in flight, whose request reaches the API only after the next leader re-sent the batch and then sent a
 * newer one, must not put the older snapshot back: its key is the re-send's, so the API replays instead of
 * applying it. The same when the ERP changed during the takeover: the next leader first re-sends the frozen
 * leader's unconfirmed batch exactly (the reconciling re-push), then the newer values. The request is held in the
 * test (not sent) and released late, as a relay would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CallOptions, ProductBatchItemBody } from '../../../src/client/index.js';
import type { CatalogApi } from '../../../src/flows/catalog/index.js';
import {
  jobContext,
  sandboxCatalog,
  startSupplierHarness,
  type SupplierHarness,
} from '../documents/supplier-harness.js';
import { addParts, catalogJob, erpSql } from './catalog-support.js';

let h: SupplierHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface HeldBatch {
  readonly items: readonly ProductBatchItemBody[];
  readonly options: CallOptions | undefined;
}

/** The real client, recording each product batch's key; the first batch is held, unsent, and the run fails. */
function holdingApi(harness: SupplierHarness, keys: string[], held: HeldBatch[]): CatalogApi {
  const api = harness.api;
  return {
    supplierBuyers: api.supplierBuyers,
    catalog: {
      async upsertProducts(items, options) {
        keys.push(options?.idempotencyKey ?? '(none)');
        if (held.length === 0) {
          held.push({ items, options });
          throw new Error('the leader froze with this batch in flight');
        }
        return api.catalog.upsertProducts(items, options);
      },
      deleteProduct: (sku, options) => api.catalog.deleteProduct(sku, options),
      setAvailability: (sku, body, options) => api.catalog.setAvailability(sku, body, options),
    },
    priceLists: api.priceLists,
  };
}

describe('catalog idempotency keys', () => {
  it("absorbs a frozen leader's late batch after the next leader sent a newer snapshot", async () => {
    h = await startSupplierHarness();
    expect((await catalogJob(h, h.api).run(jobContext(h.state))).outcome).toBe('ok');
    await addParts(h, 2, 'LATE');
    const keys: string[] = [];
    const held: HeldBatch[] = [];
    const job = catalogJob(h, holdingApi(h, keys, held));

    expect((await job.run(jobContext(h.state))).outcome).toBe('failed'); // the frozen leader's run
    expect(held).toHaveLength(1);
    expect((await sandboxCatalog(h.sandbox)).products['LATE-00000']).toBeUndefined();
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok'); // the next leader re-sends the intents
    await erpSql(h, `UPDATE PARTS SET PARTDES = 'Renamed' WHERE PARTNAME = 'LATE-00000'`);
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok'); // and sends the newer snapshot

    // The same batch got the same key; the newer snapshot a key of its own; none is random.
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys[0]).toMatch(/^catalog-products:/);

    const late = held[0];
    if (late === undefined) throw new Error('no batch was held');
    const answer = await h.api.catalog.upsertProducts(late.items, late.options);
    expect(answer.summary).toMatchObject({ total: 2 });
    expect((await sandboxCatalog(h.sandbox)).products['LATE-00000']).toMatchObject({ name: 'Renamed' });
  });

  it("absorbs the frozen leader's late batch when the ERP changed during the takeover", async () => {
    h = await startSupplierHarness();
    expect((await catalogJob(h, h.api).run(jobContext(h.state))).outcome).toBe('ok');
    await addParts(h, 2, 'LATE');
    const keys: string[] = [];
    const held: HeldBatch[] = [];
    const job = catalogJob(h, holdingApi(h, keys, held));

    expect((await job.run(jobContext(h.state))).outcome).toBe('failed'); // the frozen leader's run
    await erpSql(h, `UPDATE PARTS SET PARTDES = 'Renamed' WHERE PARTNAME = 'LATE-00000'`);
    const next = await job.run(jobContext(h.state)); // the next leader: the re-push, then the newer snapshot
    expect(next.outcome).toBe('ok');
    expect(next.counts['product_batches_resent']).toBe(1);
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect((await sandboxCatalog(h.sandbox)).products['LATE-00000']).toMatchObject({ name: 'Renamed' });

    const late = held[0];
    if (late === undefined) throw new Error('no batch was held');
    await h.api.catalog.upsertProducts(late.items, late.options);
    expect((await sandboxCatalog(h.sandbox)).products['LATE-00000']).toMatchObject({ name: 'Renamed' });
    // Nothing is left to re-send: the next run sends nothing.
    const quiet = await job.run(jobContext(h.state));
    expect(quiet.counts['product_batches_resent'] ?? 0).toBe(0);
    expect(keys).toHaveLength(3);
  });

  it('gives a value changed and changed back a key of its own, so it is applied again', async () => {
    h = await startSupplierHarness();
    await addParts(h, 1, 'FLIP');
    const keys: string[] = [];
    const api = h.api;
    const recording: CatalogApi = {
      ...api,
      supplierBuyers: api.supplierBuyers,
      priceLists: api.priceLists,
      catalog: {
        upsertProducts: (items, options) => {
          if (items.some((item) => item.sku === 'FLIP-00000')) keys.push(options?.idempotencyKey ?? '(none)');
          return api.catalog.upsertProducts(items, options);
        },
        deleteProduct: (sku, options) => api.catalog.deleteProduct(sku, options),
        setAvailability: (sku, body, options) => api.catalog.setAvailability(sku, body, options),
      },
    };
    const job = catalogJob(h, recording);
    const rename = (name: string) =>
      erpSql(h ?? raise(), `UPDATE PARTS SET PARTDES = :name WHERE PARTNAME = 'FLIP-00000'`, { name });
    await rename('A');
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    await rename('B');
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    await rename('A');
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    expect(new Set(keys).size).toBe(3);
    expect((await sandboxCatalog(h.sandbox)).products['FLIP-00000']).toMatchObject({ name: 'A' });
  });
});

function raise(): never {
  throw new Error('no harness');
}
