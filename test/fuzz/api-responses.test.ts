/**
 * API pages through the real client, served by a scripted loopback server from real sandbox orders with random
 * damage: unknown fields and unknown enum values are tolerated and counted as drift; an item missing a required
 * field is quarantined while the rest of its page is returned.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type DriftEvent } from '../../src/client/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';

const REQUIRED = [
  'id',
  'number',
  'status',
  'buyer',
  'supplier',
  'delivery_date',
  'currency',
  'totals',
  'created_at',
  'updated_at',
];

type Item = Record<string, unknown>;

interface Damage {
  unknownField: string | null;
  unknownStatus: string | null;
  dropRequired: string | null;
}

const damage: fc.Arbitrary<Damage> = fc.record({
  unknownField: fc.option(fc.stringMatching(/^[a-z]{1,12}$/).map((name) => `x_${name}`)),
  unknownStatus: fc.option(fc.stringMatching(/^[a-z_]{1,16}$/).map((name) => `zz_${name}`)),
  dropRequired: fc.option(fc.constantFrom(...REQUIRED), { freq: 4 }),
});

function apply(item: Item, d: Damage): Item {
  const copy = structuredClone(item);
  if (d.unknownField !== null) copy[d.unknownField] = { nested: [1, 'two'] };
  if (d.unknownStatus !== null) copy['status'] = d.unknownStatus;
  if (d.dropRequired !== null) delete copy[d.dropRequired];
  return copy;
}

describe('API responses with unknown and missing fields', () => {
  let sandbox: RunningSandbox;
  let server: Server;
  let baseUrl: string;
  let orders: Item[] = [];
  let page: Item[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({});
    const response = await fetch(`${sandbox.baseUrl}/supplier/orders?limit=12`, {
      headers: { authorization: `Bearer ${sandbox.keys.supplier}` },
    });
    orders = ((await response.json()) as { data: Item[] }).data;
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_scripted' });
      res.end(JSON.stringify({ data: page, next_cursor: null, has_more: false }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await sandbox.close();
  });

  it('starts from real, valid orders', () => {
    expect(orders.length).toBe(12);
  });

  it(
    'tolerates drift, quarantines what lacks a required field, and keeps the rest of the page',
    { timeout: 60_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(damage, { minLength: 12, maxLength: 12 }), async (damages) => {
          page = orders.map((order, index) => apply(order, damages[index] as Damage));
          const events: DriftEvent[] = [];
          const api = createApiClient({
            baseUrl,
            apiKey: sandbox.keys.supplier,
            onDrift: (event) => events.push(event),
            retry: { maxAttempts: 1 },
          });
          try {
            const first = await api.orders.list({ limit: 12 }).firstPage();
            const damaged = damages.map((d) => d.dropRequired !== null);
            const wantIds = orders.filter((_, i) => !damaged[i]).map((order) => order['id']);
            expect(first.items.map((order) => order.id)).toEqual(wantIds);
            expect(first.quarantined.length).toBe(damaged.filter(Boolean).length);
            expect(events.filter((e) => e.kind === 'quarantined').length).toBe(first.quarantined.length);
            const drifting = damages.filter(
              (d) => d.dropRequired === null && (d.unknownField !== null || d.unknownStatus !== null),
            );
            expect(events.filter((e) => e.kind === 'drift').length).toBeGreaterThanOrEqual(drifting.length);
            // Unknown statuses come through as they were sent, for the flow to decide.
            for (const [i, d] of damages.entries()) {
              if (d.dropRequired !== null || d.unknownStatus === null) continue;
              const parsed = first.items.find((order) => order.id === orders[i]?.['id']);
              expect(parsed?.status).toBe(d.unknownStatus);
            }
          } finally {
            await api.close();
          }
        }),
        { numRuns: 60, seed: 21 },
      );
    },
  );
});
