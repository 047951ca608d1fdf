import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientConfigError, type DriftEvent, type QuarantinedItem } from '../../src/client/index.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { page, supplierBuyer } from './helpers/fixtures.js';
import { json, startScriptServer, type ScriptServer } from './helpers/script-server.js';

let server: ScriptServer;
let client: TestClient;
let drift: DriftEvent[];

beforeEach(async () => {
  server = await startScriptServer();
  drift = [];
  client = makeClient(server, { onDrift: (event) => drift.push(event) });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const badBuyer = { id: 'buy_bad', status: 'active', updated_at: '2026-11-20T08:00:00Z' }; // no name
const driftingBuyer = { ...supplierBuyer('buy_4'), status: 'on_hold', loyalty_tier: 'gold' };

function scriptThreePages(): void {
  server.enqueue(
    json(200, page([supplierBuyer('buy_1'), supplierBuyer('buy_2')], 'c2')),
    json(200, page([supplierBuyer('buy_3'), badBuyer, driftingBuyer], 'c3')),
    json(200, page([supplierBuyer('buy_5')], null)),
  );
}

describe('pagination', () => {
  it('walks pages by cursor, passing filters and quarantining the bad item without failing the page', async () => {
    scriptThreePages();
    const pages = [];
    for await (const current of client.api.supplierBuyers
      .list({ limit: 2, updated_since: '2026-11-01T00:00:00Z' })
      .pages()) {
      pages.push(current);
    }
    expect(pages.map((current) => current.items.map((buyer) => buyer.id))).toEqual([
      ['buy_1', 'buy_2'],
      ['buy_3', 'buy_4'],
      ['buy_5'],
    ]);
    expect(pages.map((current) => [current.cursor, current.nextCursor])).toEqual([
      [undefined, 'c2'],
      ['c2', 'c3'],
      ['c3', null],
    ]);
    const quarantined = pages[1]?.quarantined ?? [];
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]).toMatchObject({ resource: 'SupplierBuyer', index: 1, raw: badBuyer });
    expect(quarantined[0]?.reason).toMatch(/name/);
    expect(server.requests.map((request) => request.query.toString())).toEqual([
      'limit=2&updated_since=2026-11-01T00%3A00%3A00Z',
      'limit=2&updated_since=2026-11-01T00%3A00%3A00Z&cursor=c2',
      'limit=2&updated_since=2026-11-01T00%3A00%3A00Z&cursor=c3',
    ]);
  });

  it('keeps unknown enum values, drops unknown fields, and counts both as drift', async () => {
    scriptThreePages();
    const items = [];
    const quarantined: QuarantinedItem[] = [];
    for await (const buyer of client.api.supplierBuyers
      .list()
      .items({ onQuarantine: (item) => quarantined.push(item) })) {
      items.push(buyer);
    }
    expect(items).toHaveLength(5);
    expect(items.find((buyer) => buyer.id === 'buy_4')?.status).toBe('on_hold');
    expect(quarantined.map((item) => item.raw)).toEqual([badBuyer]);
    expect(client.api.driftStats()['SupplierBuyer']).toEqual({ quarantined: 1, drift: 2 });
    expect(drift.filter((event) => event.kind === 'drift').map((event) => event.detail)).toEqual(
      expect.arrayContaining([expect.stringContaining('on_hold'), expect.stringContaining('loyalty_tier')]),
    );
  });

  it('resumes from a given cursor', async () => {
    server.enqueue(json(200, page([supplierBuyer('buy_5')], null)));
    const first = await client.api.supplierBuyers.list({ cursor: 'c3' }).firstPage();
    expect(first.items[0]?.id).toBe('buy_5');
    expect(server.requests[0]?.query.get('cursor')).toBe('c3');
  });

  it('fails on a bad envelope instead of returning an empty page', async () => {
    server.enqueue(json(200, { items: [] }));
    await expect(client.api.supplierBuyers.list().firstPage()).rejects.toMatchObject({
      code: 'invalid_response',
    });
    server.enqueue(json(200, { data: [], has_more: true, next_cursor: null }));
    await expect(client.api.supplierBuyers.list().firstPage()).rejects.toMatchObject({
      code: 'invalid_response',
    });
    server.enqueue(json(200, { data: [], next_cursor: null }));
    await expect(client.api.supplierBuyers.list().firstPage()).rejects.toMatchObject({
      code: 'invalid_response',
    });
  });

  it('stops iterating with the error when a later page fails', async () => {
    server.enqueue(
      json(200, page([supplierBuyer('buy_1')], 'c2')),
      json(200, { data: 'oops', has_more: false }),
    );
    const seen: string[] = [];
    const run = async () => {
      for await (const buyer of client.api.supplierBuyers.list().items()) seen.push(buyer.id);
    };
    await expect(run()).rejects.toMatchObject({ code: 'invalid_response' });
    expect(seen).toEqual(['buy_1']);
  });

  it('refuses a limit outside 1..200 before sending', () => {
    expect(() => client.api.supplierBuyers.list({ limit: 201 })).toThrow(ClientConfigError);
    expect(() => client.api.supplierBuyers.list({ limit: 0 })).toThrow(ClientConfigError);
    expect(server.requests).toHaveLength(0);
  });

  it('sends list filters comma-separated and leaves out unset ones', async () => {
    server.setFallback(json(200, page([], null)));
    await client.api.orders
      .list({
        status: ['pending_approval', 'approved'],
        expand: ['lines', 'files'],
        buyer_id: 'buy_1',
        limit: 200,
      })
      .firstPage();
    expect(Object.fromEntries(server.requests[0]?.query ?? [])).toEqual({
      status: 'pending_approval,approved',
      expand: 'lines,files',
      buyer_id: 'buy_1',
      limit: '200',
    });
  });

  it('keeps per-call options out of the query string', async () => {
    server.setFallback(json(200, page([], null)));
    const controller = new AbortController();
    await client.api.supplierBuyers
      .list({ limit: 5, signal: controller.signal, deadlineMs: 1000 })
      .firstPage();
    expect(server.requests[0]?.query.toString()).toBe('limit=5');
  });
});
