/**
 * The scheduled reconciliations (`reconcile` and `reconcile-orders` job kinds) get the daemon's API client, which
 * can write; like the CLI's `reconcile`, they must read only. Each comparison is replaced here by one that first
 * tries a write through the client it was given (as a bug in the comparison would), then compares as usual: the
 * write must be refused before it leaves the process (no write attempt reaches the API), and the job still
 * reconciles and ends ok.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiCallEvent, ApiClient } from '../../src/client/index.js';
import { buildPluginRegistry } from '../../src/daemon/plugins/builtin.js';
import { runJob, type Job } from '../../src/engine/index.js';
import { ordersFlow } from '../../src/flows/orders/index.js';
import type { FlowDeps } from '../../src/plugin/index.js';
import { openConnector } from '../../src/cli/reconcile/open.js';
import { systemClock } from '../../src/shared/clock.js';
import type { Connector } from '../../src/connector-contract/index.js';
import type { StateStore } from '../../src/state/index.js';
import { openStateStore } from '../../src/state/index.js';
import { startSupplierHarness, type SupplierHarness } from '../flows/documents/supplier-harness.js';
import { DEMO_SHIP_TO } from '../flows/orders/harness.js';
import { exportedBooks, scopes, type Books } from './books.js';

/** What each comparison's write attempt ended with. */
const attempts = vi.hoisted(() => [] as string[]);

async function tryWrite(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
    attempts.push('sent');
  } catch (error) {
    attempts.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }
}

vi.mock('../../src/flows/reconcile/orders/compare.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/flows/reconcile/orders/compare.js')>();
  return {
    ...real,
    compareOrders: async (...args: Parameters<typeof real.compareOrders>) => {
      const api = args[0] as ApiClient;
      const [order] = (await api.orders.list({ limit: 1 }).pages().next()).value?.items ?? [];
      await tryWrite(() => api.orders.acknowledge(order?.id ?? 'ord_none', { external_ref: 'ROGUE-1' }));
      return real.compareOrders(...args);
    },
  };
});

vi.mock('../../src/flows/reconcile/journal/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/flows/reconcile/journal/index.js')>();
  return {
    ...real,
    reconcileJournal: async (...args: Parameters<typeof real.reconcileJournal>) => {
      const api = args[0].api as ApiClient;
      await tryWrite(() =>
        api.accounting.createExport({ journal_line_ids: ['jl_none'] }, { idempotencyKey: 'rogue-export' }),
      );
      return real.reconcileJournal(...args);
    },
  };
});

function deps(api: ApiClient, connector: Connector, state: StateStore, dir: string): FlowDeps {
  return {
    api,
    connector: (name) => {
      if (name !== 'erp' && name !== 'books') throw new Error(`no connector ${name}`);
      return connector;
    },
    state,
    mappings: { branches: DEMO_SHIP_TO },
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    workDir: dir,
  };
}

function run(job: Job, state: StateStore) {
  return runJob(job, {
    signal: new AbortController().signal,
    budgetMs: 60_000,
    dryRun: false,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    state,
    trigger: 'schedule',
  });
}

/** A client of the daemon's kind that notes every attempt it sends. */
function observedClient(baseUrl: string, apiKey: string, calls: ApiCallEvent[]): ApiClient {
  return client.createApiClient({ baseUrl, apiKey, onCall: (event) => calls.push(event) });
}

// Test files share their test process (vitest.config.ts), so the reconciliation flows may already be loaded with the
// real comparisons: they are loaded afresh here, after the mocks above, which then take effect, with the API client
// of the same load (the flows recognise the clients their own module made).
let flows: typeof import('../../src/flows/reconcile/flows.js');
let client: typeof import('../../src/client/index.js');
beforeAll(async () => {
  vi.resetModules();
  flows = await import('../../src/flows/reconcile/flows.js');
  client = await import('../../src/client/index.js');
});

let h: SupplierHarness | undefined;
let books: Books | undefined;
const clients: ApiClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await h?.close();
  await books?.close();
});

describe('a scheduled reconciliation', () => {
  it('of orders cannot write to the API, and still reconciles', { timeout: 120_000 }, async () => {
    h = await startSupplierHarness();
    const orders = ordersFlow.create(
      { name: 'orders', connector: 'erp', options: ordersFlow.options.parse({}) },
      deps(h.api, h.connector, h.state, h.dir),
    );
    expect((await run(orders, h.state)).outcome).toBe('ok');

    const calls: ApiCallEvent[] = [];
    const api = observedClient(h.sandbox.baseUrl, h.sandbox.keys.supplier, calls);
    clients.push(api);
    const job = flows.reconcileOrdersFlow.create(
      {
        name: 'orders-check',
        connector: 'erp',
        options: flows.reconcileOrdersFlow.options.parse({ since: 400 * 86_400_000 }),
      },
      deps(api, h.connector, h.state, h.dir),
    );
    attempts.length = 0;
    const result = await run(job, h.state);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatch(
      /^ClientConfigError: job orders-check reconciles and reads only: a request that changes data was stopped: POST \/supplier\/orders\/\S+\/acknowledge was not sent$/,
    );
    expect(calls.filter((call) => call.method !== 'GET')).toEqual([]);
    expect(calls.length).toBeGreaterThan(0);
    expect(result.outcome).toBe('ok');
    expect(result.counts['matched']).toBeGreaterThan(0);
  });

  it('of the journal cannot write to the API, and still reconciles', { timeout: 180_000 }, async () => {
    books = await exportedBooks((dir) => ({ type: 'csv', output_dir: join(dir, 'books') }));
    const { period } = scopes(books);
    const connector = await openConnector(books.loaded, buildPluginRegistry(), 'books');
    const state = openStateStore({ file: join(books.dir, 'state.db'), clock: systemClock });
    try {
      const calls: ApiCallEvent[] = [];
      const api = observedClient(books.sandbox.baseUrl, books.sandbox.keys.buyer, calls);
      clients.push(api);
      const job = flows.reconcileJournalFlow.create(
        {
          name: 'month-end',
          connector: 'books',
          options: flows.reconcileJournalFlow.options.parse({
            period,
            export_options: { max_lines_per_batch: 10 },
          }),
        },
        deps(api, connector, state, books.dir),
      );
      attempts.length = 0;
      const result = await run(job, state);
      expect(attempts).toEqual([
        'ClientConfigError: job month-end reconciles and reads only: a request that changes data was stopped: POST /accounting/exports was not sent',
      ]);
      expect(calls.filter((call) => call.method !== 'GET')).toEqual([]);
      expect(calls.length).toBeGreaterThan(0);
      expect(result.outcome).toBe('ok');
    } finally {
      state.close();
      await connector.close();
    }
  });
});
