import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BATCH_LIMITS, ClientConfigError, chunk, mergeBatchResponses } from '../../src/client/index.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { batchResponse } from './helpers/fixtures.js';
import {
  problem,
  sendJson,
  sendProblem,
  startScriptServer,
  type ScriptServer,
} from './helpers/script-server.js';

let server: ScriptServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptServer();
  client = makeClient(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

/** Answers each batch call with per-item results, failing items whose sku ends in "-bad". */
function echoBatch(): void {
  server.setFallback((request, response) => {
    const items = (request.json as { items: { sku?: string; branch_id?: string }[] }).items;
    const failed = items.flatMap((item, index) => (item.sku?.endsWith('-bad') ? [index] : []));
    const body = batchResponse(items.length, failed);
    if (failed.length === items.length) {
      sendProblem(response, 422, 'validation_error', 'every item failed', body);
      return;
    }
    sendJson(response, 200, body);
  });
}

describe('batch helpers', () => {
  it('splits products into calls of 500 and merges results with their original indexes', async () => {
    echoBatch();
    const items = Array.from({ length: 1201 }, (_unused, index) => ({
      sku: index === 777 ? 'SKU-777-bad' : `SKU-${index}`,
      name: `Product ${index}`,
      unit: 'kg',
    }));
    const result = await client.api.catalog.upsertProducts(items, { idempotencyKey: 'catalog-run-9' });
    expect(server.requests.map((request) => (request.json as { items: unknown[] }).items.length)).toEqual([
      500, 500, 201,
    ]);
    expect(server.requests.map((request) => request.headers['idempotency-key'])).toEqual([
      'catalog-run-9:0',
      'catalog-run-9:1',
      'catalog-run-9:2',
    ]);
    expect(result.summary).toEqual({ total: 1201, succeeded: 1200, failed: 1, skipped: 0 });
    expect(result.items).toHaveLength(1201);
    expect(result.items.map((item) => item.index)).toEqual(items.map((_item, index) => index));
    expect(result.items.filter((item) => item.status === 'failed').map((item) => item.index)).toEqual([777]);
  });

  it('returns the per-item results of a 422 in which every item failed', async () => {
    echoBatch();
    const result = await client.api.catalog.upsertProducts([
      { sku: 'A-bad', name: 'A', unit: 'kg' },
      { sku: 'B-bad', name: 'B', unit: 'kg' },
    ]);
    expect(result.summary.failed).toBe(2);
    expect(result.items[1]?.errors?.[0]?.code).toBe('required');
  });

  it('still throws a 422 whose body is not a batch response', async () => {
    server.setFallback(problem(422, 'validation_error', { errors: [{ field: 'items', code: 'required' }] }));
    await expect(
      client.api.catalog.upsertProducts([{ sku: 'A', name: 'A', unit: 'kg' }]),
    ).rejects.toMatchObject({
      code: 'validation_error',
    });
  });

  it('splits price entries at 500, Z-reports at 500 and item sales at 5000', async () => {
    echoBatch();
    const prices = Array.from({ length: 501 }, (_unused, index) => ({ sku: `S${index}`, price: '1.00' }));
    await client.api.priceLists.putPrices('pl_1', prices);
    const zReports = Array.from({ length: 1000 }, (_unused, index) => ({
      branch_id: 'br_1',
      z_number: String(index),
      closed_at: '2026-11-21T23:00:00Z',
      total_before_vat: '100.00',
    }));
    await client.api.sales.pushZReports(zReports);
    const sales = Array.from({ length: 5001 }, (_unused, index) => ({
      branch_id: 'br_1',
      z_number: '1',
      value_date: '2026-11-21T12:00:00Z',
      item_code: `I${index}`,
      item_name: 'Item',
      quantity: '1',
      unit_price: '1.00',
      total: '1.00',
      line_number: index,
    }));
    const merged = await client.api.sales.pushItemSales(sales);
    expect(merged.items.at(-1)?.index).toBe(5000);
    expect(
      server.requests.map((request) => [
        request.method,
        request.path,
        (request.json as { items: unknown[] }).items.length,
      ]),
    ).toEqual([
      ['PUT', '/supplier/price-lists/pl_1/prices', 500],
      ['PUT', '/supplier/price-lists/pl_1/prices', 1],
      ['POST', '/sales/z-reports', 500],
      ['POST', '/sales/z-reports', 500],
      ['POST', '/sales/item-sales', 5000],
      ['POST', '/sales/item-sales', 1],
    ]);
  });

  it('marks journal lines exported in calls of at most 5000 ids with keys derived from the batch key', async () => {
    let batch = 0;
    server.setFallback((request, response) => {
      batch += 1;
      sendJson(response, 201, {
        id: `eb_${batch}`,
        line_count: (request.json as { journal_line_ids: string[] }).journal_line_ids.length,
        target: 'hashavshevet',
        external_ref: null,
        exported_at: '2026-11-22T02:00:00Z',
        exported_by: { client_id: 'cli_1', client_name: 'nightly' },
      });
    });
    const ids = Array.from({ length: 12_001 }, (_unused, index) => `jl_${index}`);
    const batches = await client.api.accounting.exportJournalLines(
      { journal_line_ids: ids, target: 'hashavshevet' },
      { idempotencyKey: 'journal-2026-11-21' },
    );
    expect(batches.map((created) => created.line_count)).toEqual([5000, 5000, 2001]);
    expect(server.requests.map((request) => request.headers['idempotency-key'])).toEqual([
      'journal-2026-11-21:0',
      'journal-2026-11-21:1',
      'journal-2026-11-21:2',
    ]);
    const sent = server.requests.flatMap(
      (request) => (request.json as { journal_line_ids: string[] }).journal_line_ids,
    );
    expect(sent).toEqual(ids);
  });

  it('refuses a single export call above 5000 ids before sending', () => {
    const ids = Array.from(
      { length: BATCH_LIMITS.journalLinesPerExport + 1 },
      (_unused, index) => `jl_${index}`,
    );
    expect(() =>
      client.api.accounting.createExport({ journal_line_ids: ids }, { idempotencyKey: 'k' }),
    ).toThrow(ClientConfigError);
    expect(server.requests).toHaveLength(0);
  });

  it('chunks and merges as pure functions', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    const merged = mergeBatchResponses(
      [
        {
          summary: { total: 1, succeeded: 1, failed: 0, skipped: 0 },
          items: [{ index: 0, status: 'created' }],
        },
        {
          summary: { total: 1, succeeded: 0, failed: 0, skipped: 1 },
          items: [{ index: 0, status: 'skipped' }],
        },
      ],
      [0, 1],
    );
    expect(merged.items).toEqual([
      { index: 0, status: 'created' },
      { index: 1, status: 'skipped' },
    ]);
    expect(merged.summary).toEqual({ total: 2, succeeded: 1, failed: 0, skipped: 1 });
  });
});
