/** The mirror against the sandbox over HTTP into real SQLite and PostgreSQL tables. */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { sqlConnectorDefinition } from '../../../connectors/sql/index.js';
import { runJob } from '../../../src/engine/index.js';
import { createMirrorJob, mirrorFlow, mirrorOptionsSchema } from '../../../src/flows/mirror/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { requireServices } from '../../connectors/services.js';
import {
  apiIds,
  jobContext,
  pgProbe,
  recordOf,
  startMirrorHarness,
  type MirrorHarness,
  type Target,
} from './harness.js';

requireServices(pgProbe);

const ORDER_COLUMNS = {
  orders: {
    number: 'number',
    status: 'status',
    branch_id: 'branch.id',
    total: { path: 'totals.with_vat', type: 'decimal' as const },
  },
};

let harness: MirrorHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function expectedIds(h: MirrorHarness): Promise<Record<string, string[]>> {
  const { api } = h;
  const keys = async (list: Promise<{ items: unknown[] }>, key: (item: never) => string) =>
    (await list).items.map((item) => key(item as never)).sort();
  return {
    orders: await apiIds(api.purchases.orders().items()),
    expenses: await apiIds(api.expenses.list().items()),
    journal_lines: await apiIds(api.accounting.journalLines().items()),
    suppliers: await apiIds(api.reference.suppliers().items()),
    products: await apiIds(api.reference.products().items()),
    branches: await apiIds(api.reference.branches().items()),
    z_reports: await apiIds(api.sales.zReports().items()),
    item_sales: await apiIds(api.sales.itemSales().items()),
    inventory_counts: await apiIds(api.inventory.counts().items()),
    purchase_types: await keys(api.reference.purchaseTypes(), (t: { code: string }) => t.code),
    expense_categories: await keys(api.reference.expenseCategories(), (c: { id: string }) => c.id),
    expense_accounts: await keys(api.reference.expenseAccounts(), (a: { code: string }) => a.code),
    account_mappings: await keys(
      api.reference.accountMappings(),
      (m: { category_id: string; purchase_type: string | null }) =>
        `${m.category_id}/${m.purchase_type ?? '*'}`,
    ),
  };
}

async function mirroredIds(h: MirrorHarness, table: string): Promise<string[]> {
  return (await h.rows(table)).map((row) => String(row['id'])).sort();
}

/** Marks an expense deleted the way the app would (the API has no delete endpoint for expenses). */
function deleteExpenseInApp(h: MirrorHarness, id: string): string {
  const snapshot = h.domain().snapshot() as { expenses: Record<string, Record<string, unknown>> };
  const expense = snapshot.expenses[id];
  if (expense === undefined) throw new Error(`no expense ${id}`);
  const at = new Date(Date.now() + 1000).toISOString();
  expense['deleted_at'] = at;
  expense['updated_at'] = at;
  h.domain().restore(snapshot);
  return at;
}

const targets: { target: Target; available: boolean; reason: string }[] = [
  { target: 'sqlite', available: true, reason: '' },
  { target: 'pg', available: pgProbe.available, reason: pgProbe.reason },
];

for (const { target, available, reason } of targets) {
  describe.skipIf(!available)(`mirror into ${target}${available ? '' : ` (skipped: ${reason})`}`, () => {
    it('creates the tables and loads everything, then loads only changes, keeping soft-deleted rows', async () => {
      const h = (harness = await startMirrorHarness({ target }));
      const first = await h.run({ columns: ORDER_COLUMNS });
      expect(first.outcome).toBe('ok');
      const expected = await expectedIds(h);
      for (const [table, ids] of Object.entries(expected)) {
        expect(ids.length, `${table} has seed data`).toBeGreaterThan(0);
        expect(await mirroredIds(h, table), table).toEqual(ids);
      }
      const orders = await h.rows('orders');
      for (const row of orders) {
        const record = recordOf(row);
        expect(row['number']).toBe(record['number']);
        expect(row['status']).toBe(record['status']);
        expect(row['branch_id']).toBe((record['branch'] as { id: string }).id);
        expect(String(row['total'])).toBe((record['totals'] as { with_vat: string }).with_vat);
        expect(row['deleted_at']).toBeNull();
      }

      await h.sandbox.control.action('create_expense', {});
      const second = await h.run({ columns: ORDER_COLUMNS });
      expect(second.outcome).toBe('ok');
      expect(second.counts['expenses.written']).toBe(1);
      expect(second.counts['rows_written']).toBe(1);
      expect(await mirroredIds(h, 'expenses')).toEqual(await apiIds(h.api.expenses.list().items()));

      const deletedId = expected['expenses']?.[0] ?? '';
      deleteExpenseInApp(h, deletedId);
      const third = await h.run({ columns: ORDER_COLUMNS });
      expect(third.counts['expenses.written']).toBe(1);
      const row = (await h.rows('expenses')).find((r) => r['id'] === deletedId);
      expect(row?.['deleted_at']).not.toBeNull();
      expect(recordOf(row ?? {})['id']).toBe(deletedId);
      expect(await mirroredIds(h, 'expenses')).toContain(deletedId);
    }, 60_000);
  });
}

describe('mirror: quarantined items and reference lists', () => {
  it('dead-letters a quarantined API item with its reason while the rest of the page syncs', async () => {
    const h = (harness = await startMirrorHarness());
    await h.sandbox.control.action('corrupt_next_list_item', { count: 1 });
    const result = await h.run({ resources: ['orders'] });
    expect(result.counts['dead_lettered']).toBe(1);
    const readout = await h.sandbox.control.state();
    const [corruptedId] = readout['corruptedItemIds'] as string[];
    const letters = h.state.deadLetters.list({ flow: 'bi-mirror:orders' });
    expect(letters.map((l) => l.recordKey)).toEqual([corruptedId]);
    expect(letters[0]?.reason).toMatch(/quarantined by the API client: .*created_at/);
    const all = await apiIds(h.api.purchases.orders().items());
    const mirrored = await mirroredIds(h, 'orders');
    expect(mirrored).toEqual(all.filter((id) => id !== corruptedId));
  }, 60_000);

  it('ends failed when every row was held back, and the run is no success (docs/operations.md, "Run outcomes")', async () => {
    const h = (harness = await startMirrorHarness());
    const snapshot = h.domain().snapshot() as { orders: Record<string, unknown> };
    const [kept] = Object.keys(snapshot.orders).sort();
    snapshot.orders = Object.fromEntries(Object.entries(snapshot.orders).filter(([id]) => id === kept));
    h.domain().restore(snapshot);
    await h.sandbox.control.action('corrupt_next_list_item', { count: 1 });
    const job = createMirrorJob({
      name: 'bi-mirror',
      api: h.api,
      sink: h.sink,
      options: mirrorOptionsSchema.parse({ resources: ['orders'] }),
    });
    const result = await runJob(job, jobContext(h.state));
    expect(result).toMatchObject({
      outcome: 'failed',
      counts: { delivered: 0, held_back: 1, dead_lettered: 1 },
    });
    expect(result.error).toMatch(/^delivered nothing: 1 row held back/);
    expect(h.state.deadLetters.list({ flow: 'bi-mirror:orders' }).map((l) => l.recordKey)).toEqual([kept]);
    const [record] = h.state.runs.recent('bi-mirror', 1);
    expect(record).toMatchObject({ outcome: 'failed', counts: { delivered: 0, held_back: 1 } });
    expect(h.state.runs.last('bi-mirror', ['ok', 'partial'])).toBeNull();
  }, 60_000);

  it('does not rewrite unchanged rows of lists that are re-read on every run', async () => {
    const h = (harness = await startMirrorHarness());
    const resources = [
      'branches',
      'z_reports',
      'item_sales',
      'inventory_counts',
      'expense_categories',
    ] as const;
    const first = await h.run({ resources: [...resources] });
    expect(first.counts['rows_written']).toBeGreaterThan(0);
    const second = await h.run({ resources: [...resources] });
    expect(second.outcome).toBe('ok');
    expect(second.counts['rows_written']).toBe(0);
    expect(second.counts['item_sales.fetched']).toBeGreaterThan(0);
  }, 60_000);
});

describe('mirror: flow definition', () => {
  it('builds its job from a sql connector with a mirror block; a dry run reads and writes nothing', async () => {
    const h = (harness = await startMirrorHarness());
    const connector = await sqlConnectorDefinition.create(
      { connection: { driver: 'sqlite', file: 'dw.db' }, mirror: { table_prefix: 'dw_' } },
      { name: 'dw', baseDir: h.dir },
    );
    const job = mirrorFlow.create(
      {
        name: 'dw-mirror',
        connector: 'dw',
        options: mirrorFlow.options.parse({ resources: ['branches', 'expense_accounts'] }),
      },
      {
        api: h.api,
        connector: (name) => {
          if (name !== 'dw') throw new Error(`unknown connector ${name}`);
          return connector;
        },
        state: h.state,
        mappings: {},
        logger: pino({ level: 'silent' }),
        clock: systemClock,
        workDir: h.dir,
      },
    );
    const driver = (connector as unknown as { driver: MirrorHarness['driver'] }).driver;
    const tables = async () =>
      (
        await driver.query(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'dw_%' ORDER BY name",
        )
      ).rows.map((row) => row['name']);

    const dry = await job.run(jobContext(h.state, { dryRun: true }));
    expect(dry.counts['branches.would_read']).toBeGreaterThan(0);
    expect(await tables()).toEqual([]);
    expect(h.state.cursors.list()).toEqual([]);

    const real = await job.run(jobContext(h.state));
    expect(real.outcome).toBe('ok');
    expect(await tables()).toEqual(['dw_branches', 'dw_expense_accounts']);
    const branches = await driver.query('SELECT id FROM dw_branches ORDER BY id');
    expect(branches.rows.map((row) => row['id'])).toEqual(await apiIds(h.api.reference.branches().items()));
    expect(() =>
      mirrorFlow.create({ name: 'x', options: mirrorFlow.options.parse({}) }, {} as never),
    ).toThrow(/jobs\.x\.connector/);
    expect(() => mirrorFlow.options.parse({ columns: { orders: { record: 'number' } } })).toThrow(/reserved/);
    await connector.close();
  }, 60_000);
});
