/**
 * In-process crash injection: the run dies after the API accepted the items and before the source marked the
 * batch (or before the results were kept). After a restart on the same state file nothing is lost and nothing is
 * stored twice in the sandbox.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/client/index.js';
import type { SalesSource } from '../../../src/connector-contract/index.js';
import { capabilityOf } from '../../support/capability.js';
import { createSalesPushJob, salesPushOptionsSchema } from '../../../src/flows/sales-push/index.js';
import {
  ITEM_HEADER,
  jobContext,
  sandboxSales,
  startSalesHarness,
  Z_HEADER,
  type SalesHarness,
} from './harness.js';

let harness: SalesHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

class SimulatedCrash extends Error {}

async function dropDay(h: SalesHarness): Promise<void> {
  await h.drop('z.csv', [Z_HEADER, 'TLV01,ZC-1,2026-11-20T23:10:00+02:00,700.00,,3']);
  // No line numbers: the flow numbers them, which is what makes a re-send an update instead of new lines.
  await h.drop('items.csv', [
    ITEM_HEADER,
    'TLV01,ZC-1,,2026-11-20T12:00:00+02:00,A-1,Soup,1,200,200,',
    'TLV01,ZC-1,,2026-11-20T12:01:00+02:00,A-2,Salad,2,100,200,',
    'TLV01,ZC-1,,2026-11-20T12:02:00+02:00,A-3,Steak,1,300,300,',
  ]);
}

async function expectEachItemOnce(h: SalesHarness): Promise<void> {
  const stored = await sandboxSales(h.sandbox, 'ZC-1');
  expect(stored.zReports).toHaveLength(1);
  expect(stored.itemSales.map((s) => [s.line_number, s.item_code]).sort()).toEqual([
    [1, 'A-1'],
    [2, 'A-2'],
    [3, 'A-3'],
  ]);
  expect(await readdir(join(h.dropDir, 'done'))).toEqual(['items.csv', 'z.csv']);
  expect(h.state.deadLetters.countOpen('pos-sales')).toBe(0);
  expect(h.state.ledger.count('pos-sales')).toBe(4);
}

describe('sales-push crash injection', () => {
  it('re-runs without loss when it dies after the push and before the batch is marked', async () => {
    const h = (harness = await startSalesHarness());
    await dropDay(h);
    const connector = await h.csvConnector();
    const real = capabilityOf(connector, 'salesSource', 'pos');
    const crashing: SalesSource = {
      listPendingSales: () => real.listPendingSales(),
      markSalesBatch: () => Promise.reject(new SimulatedCrash('killed before marking')),
    };
    const crashed = await createSalesPushJob({
      name: 'pos-sales',
      api: h.api,
      source: crashing,
      connectorName: 'pos',
      options: salesPushOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    // The push's results were stored before the crash: an error stopped a run that got somewhere (partial).
    expect(crashed).toMatchObject({
      outcome: 'partial',
      error: expect.stringContaining('killed before marking'),
    });
    expect((await readdir(h.dropDir)).filter((n) => n.endsWith('.csv')).sort()).toEqual([
      'items.csv',
      'z.csv',
    ]);

    const state = h.reopenState();
    const rerun = await createSalesPushJob({
      name: 'pos-sales',
      api: h.api,
      source: real,
      connectorName: 'pos',
      options: salesPushOptionsSchema.parse({}),
    }).run(jobContext(state));
    expect(rerun.outcome).toBe('ok');
    // items.csv (first by name) was accepted before the crash: the ledger knows, so its lines are not sent again;
    // z.csv was never reached and is pushed now.
    expect(rerun.counts['items_already_sent']).toBe(3);
    expect(rerun.counts['z_reports_accepted']).toBe(1);
    expect(rerun.counts['batches_done']).toBe(2);
    await expectEachItemOnce(h);
    await connector.close();
  }, 60_000);

  it('re-runs without duplicates when it dies after the API accepted the items and before they were kept', async () => {
    const h = (harness = await startSalesHarness());
    await dropDay(h);
    const connector = await h.csvConnector();
    const source = capabilityOf(connector, 'salesSource', 'pos');
    let calls = 0;
    const dying: ApiClient = {
      ...h.api,
      sales: {
        ...h.api.sales,
        pushItemSales: async (items, options) => {
          const response = await h.api.sales.pushItemSales(items, options);
          calls += 1;
          throw new SimulatedCrash(`killed after the API answered ${response.items.length} results`);
        },
      },
    };
    const crashed = await createSalesPushJob({
      name: 'pos-sales',
      api: dying,
      source,
      connectorName: 'pos',
      options: salesPushOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(calls).toBe(1);
    expect(crashed.outcome).not.toBe('ok');
    expect(h.state.ledger.latest('pos-sales', 'pos', 'item_sale:br_tlv/ZC-1/1')).toBeNull();

    const state = h.reopenState();
    const rerun = await createSalesPushJob({
      name: 'pos-sales',
      api: h.api,
      source,
      connectorName: 'pos',
      options: salesPushOptionsSchema.parse({}),
    }).run(jobContext(state));
    expect(rerun.outcome).toBe('ok');
    expect(rerun.counts['item_sales_accepted']).toBe(3);
    await expectEachItemOnce(h);
    await connector.close();
  }, 60_000);

  it('keeps the last row of a Z-report a file revises further down, also when it dies before the file is marked', async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('z.csv', [
      Z_HEADER,
      'TLV01,ZC-2,2026-11-20T23:10:00+02:00,700.00,,3',
      'TLV01,ZC-2,2026-11-20T23:10:00+02:00,745.50,,4',
    ]);
    const connector = await h.csvConnector();
    const real = capabilityOf(connector, 'salesSource', 'pos');
    const crashing: SalesSource = {
      listPendingSales: () => real.listPendingSales(),
      markSalesBatch: () => Promise.reject(new SimulatedCrash('killed before marking')),
    };
    const job = (source: SalesSource) =>
      createSalesPushJob({
        name: 'pos-sales',
        api: h.api,
        source,
        connectorName: 'pos',
        options: salesPushOptionsSchema.parse({}),
      });
    const crashed = await job(crashing).run(jobContext(h.state));
    // The push's results were stored before the crash: an error stopped a run that got somewhere (partial).
    expect(crashed).toMatchObject({
      outcome: 'partial',
      error: expect.stringContaining('killed before marking'),
    });
    expect(crashed.counts['z_reports_accepted']).toBe(1);
    expect(crashed.counts['items_superseded']).toBe(1);

    const rerun = await job(real).run(jobContext(h.reopenState()));
    expect(rerun.outcome).toBe('ok');
    // The earlier row is not the record: sending it now would take the API back to 700.00.
    expect(rerun.counts['z_reports_accepted'] ?? 0).toBe(0);
    expect(rerun.counts['items_already_sent']).toBe(1);
    const stored = await sandboxSales(h.sandbox, 'ZC-2');
    expect(stored.zReports.map((z) => [z.z_number, z.total_before_vat])).toEqual([['ZC-2', '745.50']]);
    await connector.close();
  }, 60_000);
});
