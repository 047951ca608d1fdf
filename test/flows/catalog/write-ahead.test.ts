/**
 * Write-ahead intents of the catalog flow, in one process against the sandbox over HTTP: a call the API applied
 * whose answer never reached the state (the call throws after the real request succeeded, as a process that died
 * there would leave things) is sent again or undone by the next run, for availability and prices as for products;
 * an item refused after such a crash keeps the earlier intent, so it is still deleted when the ERP drops it; and a
 * dry run records no intent. On both state backends: a SQLite file and a PostgreSQL database.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogApi } from '../../../src/flows/catalog/index.js';
import { pendingFlow } from '../../../src/flows/catalog/intents.js';
import {
  jobContext,
  sandboxCatalog,
  startSupplierHarness,
  type SupplierHarness,
} from '../documents/supplier-harness.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openPgStateStore } from '../../../src/state/index.js';
import { createTempDatabase, postgresProbe } from '../../ha/support/postgres.js';
import { addParts, catalogJob, erpSql } from './catalog-support.js';

let h: SupplierHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The real client, except that the first call of `op` touching `key` throws once the API has answered it. */
function answerLostOnce(harness: SupplierHarness, op: 'upsert' | 'availability' | 'prices', key: string) {
  const api = harness.api;
  let armed = true;
  const lose = <T>(touches: boolean, answer: T): T => {
    if (armed && touches) {
      armed = false;
      throw new Error('the process died after the API answered, before the answer was recorded');
    }
    return answer;
  };
  const wrapped: CatalogApi = {
    supplierBuyers: api.supplierBuyers,
    catalog: {
      async upsertProducts(items, options) {
        const answer = await api.catalog.upsertProducts(items, options);
        return lose(op === 'upsert' && items.some((item) => item.sku === key), answer);
      },
      deleteProduct: (sku, options) => api.catalog.deleteProduct(sku, options),
      async setAvailability(sku, body, options) {
        const answer = await api.catalog.setAvailability(sku, body, options);
        return lose(op === 'availability' && sku === key, answer);
      },
    },
    priceLists: {
      async putPrices(id, items, options) {
        const answer = await api.priceLists.putPrices(id, items, options);
        return lose(op === 'prices' && items.some((item) => item.sku === key), answer);
      },
      assignBuyer: (id, body, options) => api.priceLists.assignBuyer(id, body, options),
    },
  };
  return wrapped;
}

const probe = await postgresProbe();

/** The harness with its state on `backend`: its SQLite file, or a fresh PostgreSQL database. */
async function startHarness(backend: 'sqlite' | 'postgres'): Promise<SupplierHarness> {
  const harness = await startSupplierHarness();
  if (backend === 'sqlite') return harness;
  const database = await createTempDatabase();
  const state = openPgStateStore({ url: database.url, clock: systemClock });
  return {
    ...harness,
    state,
    close: async () => {
      state.close();
      await database.drop();
      await harness.close();
    },
  };
}

describe.each([
  ['sqlite', null],
  ['postgres', probe.available ? null : probe.reason],
] as const)('catalog write-ahead intents (%s state)', (backend, skipReason) => {
  if (skipReason !== null) {
    it.skip(`skipped: ${skipReason}`, () => undefined);
    return;
  }
  it('availability set, answer lost, ERP back to the stored state: the next run sets it back', async () => {
    h = await startHarness(backend);
    const job = catalogJob(h, h.api);
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    const sku = 'BULK-00002';
    await addParts(h, 3);
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');

    await erpSql(
      h,
      `UPDATE WAREHOUSEBAL SET BALANCE = '0', AVAILUNTIL = '2030-01-15' WHERE PARTNAME = :sku`,
      {
        sku,
      },
    );
    const crashed = await catalogJob(h, answerLostOnce(h, 'availability', sku)).run(jobContext(h.state));
    expect(crashed.outcome).toBe('failed');
    expect((await sandboxCatalog(h.sandbox)).products[sku]).toMatchObject({
      available: false,
      available_until: '2030-01-15',
    });

    await erpSql(h, `UPDATE WAREHOUSEBAL SET BALANCE = '10', AVAILUNTIL = NULL WHERE PARTNAME = :sku`, {
      sku,
    });
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    expect((await sandboxCatalog(h.sandbox)).products[sku]).toMatchObject({
      available: true,
      available_until: null,
    });
    expect(h.state.hashes.count(pendingFlow('catalog', 'availability'))).toBe(0);
  });

  it('price put, answer lost, ERP back to the stored price: the next run puts the stored price again', async () => {
    h = await startHarness(backend);
    await addParts(h, 3);
    const job = catalogJob(h, h.api);
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    const sku = 'BULK-00001';

    await erpSql(h, `UPDATE PRICELIST SET PRICE = '11.00' WHERE PARTNAME = :sku`, { sku });
    const crashed = await catalogJob(h, answerLostOnce(h, 'prices', sku)).run(jobContext(h.state));
    expect(crashed.outcome).toBe('failed');
    const pricesOf = async () =>
      ((await sandboxCatalog(h?.sandbox ?? raise())).prices['pl_standard'] ?? [])
        .filter((entry) => entry.sku === sku)
        .map((entry) => entry.price);
    expect(await pricesOf()).toEqual(['11.00']);

    await erpSql(h, `UPDATE PRICELIST SET PRICE = '9.90' WHERE PARTNAME = :sku`, { sku });
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    expect(await pricesOf()).toEqual(['9.90']);
    expect(h.state.hashes.count(pendingFlow('catalog', 'prices'))).toBe(0);
  });

  it('a product refused after a lost answer keeps the earlier intent and is deleted when the ERP drops it', async () => {
    h = await startHarness(backend);
    const job = catalogJob(h, h.api);
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    await addParts(h, 1, 'LATE');
    const crashed = await catalogJob(h, answerLostOnce(h, 'upsert', 'LATE-00000')).run(jobContext(h.state));
    expect(crashed.outcome).toBe('failed');

    await erpSql(h, `UPDATE PARTS SET PARTDES = :name WHERE PARTNAME = 'LATE-00000'`, {
      name: 'x'.repeat(201),
    });
    const refused = await job.run(jobContext(h.state));
    expect(refused.outcome).toBe('partial');
    expect(refused.counts['products_dead_lettered']).toBe(1);
    expect(h.state.deadLetters.get('catalog', 'product:LATE-00000')?.reason).toMatch(/name/);
    expect(h.state.hashes.get(pendingFlow('catalog', 'products'), 'LATE-00000')).toBeDefined();

    await erpSql(h, `UPDATE PARTS SET INACTIVE = 'Y' WHERE PARTNAME = 'LATE-00000'`);
    const removed = await job.run(jobContext(h.state));
    expect(removed.counts['products_removed']).toBe(1);
    expect((await sandboxCatalog(h.sandbox)).products['LATE-00000']?.deleted_at).not.toBeNull();
    expect(h.state.hashes.get(pendingFlow('catalog', 'products'), 'LATE-00000')).toBeUndefined();
  });

  it('a product refused on its first send leaves no intent behind', async () => {
    h = await startHarness(backend);
    const job = catalogJob(h, h.api);
    expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    await addParts(h, 1, 'LATE');
    await erpSql(h, `UPDATE PARTS SET PARTDES = :name WHERE PARTNAME = 'LATE-00000'`, {
      name: 'x'.repeat(201),
    });
    const refused = await job.run(jobContext(h.state));
    expect(refused.counts['products_dead_lettered']).toBe(1);
    expect(h.state.hashes.count(pendingFlow('catalog', 'products'))).toBe(0);
    expect((await sandboxCatalog(h.sandbox)).products['LATE-00000']).toBeUndefined();
  });

  it('a dry run records no intent', async () => {
    h = await startHarness(backend);
    const preview = await catalogJob(h, h.api).run(jobContext(h.state, { dryRun: true }));
    expect(preview.counts['products_changed']).toBe(351);
    for (const kind of ['products', 'availability', 'prices'] as const)
      expect(h.state.hashes.count(pendingFlow('catalog', kind))).toBe(0);
  });
});

function raise(): never {
  throw new Error('no harness');
}
