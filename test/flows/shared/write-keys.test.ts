/**
 * Every API write of the supplier flows carries an Idempotency-Key of its own, derived from what it writes, so that
 * a copy sent again (by the next leader, or by the next run after a crash) is recognised by the API as a repeat.
 * The orders (with their acknowledgements), documents, catalog and order-confirm jobs run against the sandbox over
 * real HTTP, through a relay that records each write with its key and loses the first sending of each one (503,
 * never forwarded). The next run does the same work again: its copy must carry the same key. A POST the client had
 * to give a key of its own (one the flow did not choose) fails the test, as does a write without key that the
 * contract has no key for and docs/contract-gaps.md does not list as safe to repeat.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { simulateErpActivity } from '../../../connectors/sql/demo-erp/index.js';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import { runJob, type Job } from '../../../src/engine/index.js';
import { catalogFlow } from '../../../src/flows/catalog/index.js';
import { documentsFlow } from '../../../src/flows/documents/index.js';
import { orderConfirmFlow } from '../../../src/flows/order-confirm/index.js';
import { ordersFlow } from '../../../src/flows/orders/index.js';
import type { FlowDeps } from '../../../src/plugin/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { DEMO_PRICE_LISTS } from '../catalog/catalog-support.js';
import { mulberry32, startSupplierHarness, type SupplierHarness } from '../documents/supplier-harness.js';
import { DEMO_SHIP_TO } from '../orders/harness.js';
import { WriteKeyRelay, type RecordedWrite } from './write-keys-relay.js';

/** Writes the contract gives no Idempotency-Key, each safe to repeat as docs/contract-gaps.md says. */
const KEYLESS = new Set(['PUT /supplier/price-lists/{id}/prices', 'DELETE /supplier/products/{id}']);
/** POSTs sent under a random key by design (docs/contract-gaps.md): an upload's body is never the same twice. */
const RANDOM_KEY = new Set(['POST /files']);
/** Rounds of runs until no job has anything left to write; each round re-does what the last one lost. */
const MAX_ROUNDS = 40;

let h: SupplierHarness | undefined;
let relay: WriteKeyRelay | undefined;
let api: ApiClient | undefined;
afterEach(async () => {
  await api?.close();
  await relay?.close();
  await h?.close();
  [api, relay, h] = [undefined, undefined, undefined];
});

describe('idempotency keys of the supplier flows', () => {
  it(
    'gives every write a key of its own, the same when the same write is sent again',
    { timeout: 240_000 },
    async () => {
      h = await startSupplierHarness();
      relay = await WriteKeyRelay.start(h.sandbox.baseUrl);
      let unkeyed = 0;
      api = createApiClient({
        baseUrl: relay.baseUrl,
        apiKey: h.sandbox.keys.supplier,
        // One attempt per call: a lost write is sent again only by the flow's next run.
        retry: { maxAttempts: 1 },
        rateLimit: { perMinute: 100_000 },
        newIdempotencyKey: () => `client-chosen-${(unkeyed += 1)}`,
      });
      const harness = h;
      const deps: FlowDeps = {
        api,
        connector: (name) => {
          if (name !== 'erp') throw new Error(`no connector named ${name}`);
          return harness.connector;
        },
        state: harness.state,
        mappings: { branches: DEMO_SHIP_TO },
        logger: pino({ level: 'silent' }),
        clock: systemClock,
        workDir: harness.dir,
      };
      const jobs = {
        orders: ordersFlow.create(
          { name: 'orders', connector: 'erp', options: ordersFlow.options.parse({}) },
          deps,
        ),
        confirm: orderConfirmFlow.create(
          { name: 'order-confirm', connector: 'erp', options: orderConfirmFlow.options.parse({}) },
          deps,
        ),
        documents: documentsFlow.create(
          { name: 'documents', connector: 'erp', options: documentsFlow.options.parse({}) },
          deps,
        ),
        catalog: catalogFlow.create(
          {
            name: 'catalog',
            connector: 'erp',
            options: catalogFlow.options.parse({ price_lists: DEMO_PRICE_LISTS }),
          },
          deps,
        ),
      };
      const untilQuiet = async (which: readonly Job[]): Promise<void> => {
        for (let round = 0; round < MAX_ROUNDS; round += 1) {
          const before = relay?.writes.length ?? 0;
          for (const job of which) await runJob(job, context(harness));
          if ((relay?.writes.length ?? 0) === before) return;
        }
        throw new Error(`the jobs still wrote after ${MAX_ROUNDS} rounds`);
      };

      // The sandbox's orders into the ERP, each acknowledged; then the ERP confirms some, issues documents
      // (with attachments) and changes its catalog, and every job sends what it has.
      await untilQuiet([jobs.orders]);
      await simulateErpActivity(harness.erp, {
        clock: systemClock,
        random: mulberry32(7),
        documents: 4,
        confirmations: 4,
        catalogChanges: 4,
      });
      await untilQuiet([jobs.orders, jobs.confirm, jobs.documents, jobs.catalog]);

      const writes = relay.writes;
      const routes = new Set(writes.map((write) => `${write.method} ${write.route}`));
      // Every kind of write the flows make was seen (so each was checked below).
      for (const expected of [
        'POST /supplier/orders/{id}/acknowledge',
        'POST /supplier/documents',
        'POST /supplier/products/batch',
        'PUT /supplier/price-lists/{id}/prices',
      ]) {
        expect(routes, `no ${expected} was sent`).toContain(expected);
      }
      expect(
        [...routes].some((route) => /^POST \/supplier\/orders\/\{id\}\/(confirm|reject)$/.test(route)),
        'no order confirmation was sent',
      ).toBe(true);

      // A key on every POST, chosen by the flow; none on the keyless writes, which must be listed as safe.
      const problems: string[] = [];
      for (const write of writes) {
        const route = `${write.method} ${write.route}`;
        if (write.method === 'POST' && !RANDOM_KEY.has(route)) {
          if (write.key === null)
            problems.push(`${route} (${write.path}) was sent without an Idempotency-Key`);
          else if (write.key.startsWith('client-chosen-'))
            problems.push(`${route} (${write.path}) was sent under a random key, not one of its own`);
        } else if (write.method !== 'POST' && !KEYLESS.has(route)) {
          problems.push(`${route} (${write.path}) has no key and is not listed as safe to repeat`);
        }
      }
      // The same write sent again carries the same key.
      const byWrite = new Map<string, RecordedWrite[]>();
      for (const write of writes)
        byWrite.set(write.fingerprint, [...(byWrite.get(write.fingerprint) ?? []), write]);
      let repeated = 0;
      for (const copies of byWrite.values()) {
        const first = copies[0];
        if (first === undefined || RANDOM_KEY.has(`${first.method} ${first.route}`)) continue;
        // Lost once, sent again: each write that reached the API was seen twice.
        if (copies.length < 2)
          problems.push(`${first.method} ${first.path} was not sent again after it was lost`);
        else repeated += 1;
        const keys = new Set(copies.map((copy) => copy.key));
        if (keys.size > 1)
          problems.push(
            `${first.method} ${first.path} was sent again under another key: ${[...keys].join(', ')}`,
          );
      }
      expect(problems).toEqual([]);
      expect(repeated).toBeGreaterThan(0);
      process.stdout.write(
        `write keys: ${writes.length} writes, ${repeated} sent again with their key, routes ${[...routes].join(', ')}\n`,
      );
    },
  );
});

function context(harness: SupplierHarness) {
  return {
    signal: new AbortController().signal,
    budgetMs: 60_000,
    dryRun: false,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    state: harness.state,
    trigger: 'cli' as const,
  };
}
