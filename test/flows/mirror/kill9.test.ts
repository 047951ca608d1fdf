/**
 * kill -9 at seeded random points: a child process runs the mirror job against the sandbox this test hosts into a
 * SQLite file, on a real state file, and is killed with SIGKILL (by a timer here, or by itself before or after a
 * table upsert or an export job creation), then restarted. One scenario starts with a bulk-export backfill
 * (Enterprise key), the other pages from the start (plain buyer key). Meanwhile the buyer's data keeps changing:
 * orders sent, cancelled and touched, expenses created, approved and deleted in the app, journal lines approved,
 * suppliers updated, inventory counts completed, POS sales pushed and revised. In the end every table holds
 * exactly the API's records: none missing, none extra, each once and in its latest version.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import { canonicalJson } from '../../../src/engine/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { mulberry32 } from '../documents/supplier-harness.js';
import type { MirrorChildSettings } from './child.js';
import { recordOf, startMirrorHarness, TABLE_PREFIX, type MirrorHarness } from './harness.js';
import { expectConverges, killRounds } from '../kill9/rounds.js';

const KILL_POINTS = Number(process.env['MIRROR_KILL_POINTS'] ?? 50);
const CHILD = join(import.meta.dirname, 'child.ts');
const BRANCHES = ['br_tlv', 'br_hrz', 'br_jlm', 'br_hfa'];
/** Rounds of the enterprise scenario that self-kill early in the run, inside the backfill. */
const BACKFILL_ROUNDS = 8;

const harnesses: MirrorHarness[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

/** The buyer's side of the story: one seeded change at a time, through control actions and the API. */
class BuyerActivity {
  readonly #orders: string[] = [];
  readonly #expenses: string[] = [];
  #sales = 0;

  constructor(
    private readonly harness: MirrorHarness,
    private readonly seller: ApiClient,
    private readonly random: () => number,
    private readonly prefix: string,
  ) {}

  async changeSome(): Promise<void> {
    const changes = 1 + Math.floor(this.random() * 3);
    for (let n = 0; n < changes; n += 1) await this.change();
  }

  async change(): Promise<void> {
    const action = (name: string, body: Record<string, unknown> = {}) =>
      this.harness.sandbox.control.action(name, body);
    const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(this.random() * items.length)];
    switch (Math.floor(this.random() * 10)) {
      case 0: {
        const sent = (await action('buyer_send_order', { count: 1 + Math.floor(this.random() * 3) })) as {
          order_ids: string[];
        };
        this.#orders.push(...sent.order_ids);
        return;
      }
      case 1: {
        const order = pick(this.#orders);
        if (order === undefined) return;
        this.#orders.splice(this.#orders.indexOf(order), 1);
        await action('buyer_cancel_order', { order_id: order }).catch(() => undefined);
        return;
      }
      case 2:
        await action('touch_orders_same_timestamp', { count: 1 + Math.floor(this.random() * 5) });
        return;
      case 3: {
        const expense = (await action('create_expense', {})) as { id: string };
        this.#expenses.push(expense.id);
        return;
      }
      case 4: {
        const expense = pick(this.#expenses);
        if (expense === undefined) return;
        this.#expenses.splice(this.#expenses.indexOf(expense), 1);
        if (this.random() < 0.5) await action('approve_expense', { expense_id: expense });
        else this.#deleteExpenseInApp(expense);
        return;
      }
      case 5:
        await action('approve_journal_lines', { count: 3 + Math.floor(this.random() * 20) });
        return;
      case 6:
        await action('update_supplier', {});
        return;
      case 7:
        await action('complete_inventory_count', { branch_id: pick(BRANCHES) ?? 'br_tlv' });
        return;
      case 8:
        await action('insert_late_order', { lag_ms: 1000 + Math.floor(this.random() * 5000) });
        return;
      default:
        await this.#pushSales();
    }
  }

  /** A new Z-report with its lines, or new totals for the last one (the POS re-sends a day it corrected). */
  async #pushSales(): Promise<void> {
    if (this.#sales === 0 || this.random() < 0.6) this.#sales += 1;
    const branch = BRANCHES[this.#sales % BRANCHES.length] ?? 'br_tlv';
    const z = `${this.prefix}-${this.#sales}`;
    const now = new Date().toISOString();
    const total = `${100 + Math.floor(this.random() * 900)}.00`;
    await this.seller.sales.pushZReports([
      { branch_id: branch, z_number: z, closed_at: now, total_before_vat: total },
    ]);
    const lines = 1 + Math.floor(this.random() * 30);
    await this.seller.sales.pushItemSales(
      Array.from({ length: lines }, (_, index) => ({
        branch_id: branch,
        z_number: z,
        line_number: index + 1,
        value_date: now,
        item_code: `I-${Math.floor(this.random() * 50)}`,
        item_name: 'Item',
        quantity: '1',
        unit_price: total,
        total,
      })),
    );
  }

  /** The API has no delete endpoint for expenses: the app marks them deleted. */
  #deleteExpenseInApp(id: string): void {
    const domain = this.harness.domain();
    const snapshot = domain.snapshot() as { expenses: Record<string, Record<string, unknown>> };
    const expense = snapshot.expenses[id];
    if (expense === undefined) return;
    const at = new Date(Math.max(Date.now(), Date.parse(String(expense['updated_at'])) + 1)).toISOString();
    expense['deleted_at'] = at;
    expense['updated_at'] = at;
    domain.restore(snapshot);
  }
}

/** Every record the API lists, per mirror table, keyed as the mirror keys it, as canonical JSON. */
async function apiRecords(api: ApiClient): Promise<Record<string, Map<string, string>>> {
  const byId = async (items: AsyncIterable<{ id: string }>) => {
    const records = new Map<string, string>();
    for await (const item of items) records.set(item.id, canonicalJson(item));
    return records;
  };
  const byKey = async <T>(list: Promise<{ items: T[] }>, key: (item: T) => string) =>
    new Map((await list).items.map((item) => [key(item), canonicalJson(item)]));
  return {
    orders: await byId(api.purchases.orders().items()),
    expenses: await byId(api.expenses.list().items()),
    journal_lines: await byId(api.accounting.journalLines().items()),
    suppliers: await byId(api.reference.suppliers().items()),
    products: await byId(api.reference.products().items()),
    branches: await byId(api.reference.branches().items()),
    z_reports: await byId(api.sales.zReports().items()),
    item_sales: await byId(api.sales.itemSales().items()),
    inventory_counts: await byId(api.inventory.counts({ expand: ['lines'] }).items()),
    purchase_types: await byKey(api.reference.purchaseTypes(), (t) => t.code),
    expense_categories: await byKey(api.reference.expenseCategories(), (c) => c.id),
    expense_accounts: await byKey(api.reference.expenseAccounts(), (a) => a.code),
    account_mappings: await byKey(
      api.reference.accountMappings(),
      (m) => `${m.category_id}/${m.purchase_type ?? '*'}`,
    ),
  };
}

/** Differences between a mirror table and the API: missing, extra, duplicated or stale rows. */
async function tableProblems(
  harness: MirrorHarness,
  table: string,
  expected: Map<string, string>,
): Promise<string[]> {
  const rows = await harness.rows(table);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const id = String(row['id']);
    if (seen.has(id)) problems.push(`${table} ${id} twice`);
    seen.add(id);
    const want = expected.get(id);
    if (want === undefined) problems.push(`${table} ${id} not in the API`);
    else if (canonicalJson(recordOf(row)) !== want) problems.push(`${table} ${id} is not the latest version`);
  }
  for (const id of expected.keys()) if (!seen.has(id)) problems.push(`${table} ${id} missing`);
  return problems;
}

async function scenario(key: 'enterprise' | 'buyer', seed: number, points: number) {
  const harness = await startMirrorHarness({ key });
  harnesses.push(harness);
  const seller = createApiClient({
    baseUrl: harness.sandbox.baseUrl,
    apiKey: harness.sandbox.keys.buyer,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50, deadlineMs: 20_000 },
  });
  clients.push(seller);
  const random = mulberry32(seed);
  const activity = new BuyerActivity(harness, seller, random, `ZM${seed}`);
  const settings: MirrorChildSettings = {
    baseUrl: harness.sandbox.baseUrl,
    apiKey: key === 'enterprise' ? harness.sandbox.keys.enterprise : harness.sandbox.keys.buyer,
    // Not the harness's state file: the harness holds that one open, and the state file allows one process.
    stateFile: join(harness.dir, 'daemon.db'),
    targetFile: join(harness.dir, 'bi.db'),
    tablePrefix: TABLE_PREFIX,
    // Small pages and export chunks: more upserts, so more crash windows per run.
    options: { page_size: 25, export_chunk_rows: 10, overlap: '2m' },
  };
  const rounds = await killRounds({
    child: CHILD,
    envName: 'MIRROR_CHILD',
    settings: { ...settings },
    random,
    points,
    maxStep: 30,
    // The backfill (export job creation, then each file in chunks) is the first ~150 writes of the enterprise
    // scenario: self-kills within the first 30 writes of a run keep the first rounds inside it.
    selfKillFirst: key === 'enterprise' ? BACKFILL_ROUNDS : 0,
    maxDelayMs: 800,
    between: () => activity.changeSome(),
    during: () => activity.change(),
    duringMaxMs: 800,
  });
  await expectConverges(CHILD, 'MIRROR_CHILD', { ...settings });

  const expected = await apiRecords(harness.api);
  const problems: string[] = [];
  for (const [table, records] of Object.entries(expected)) {
    expect(records.size, `${table} has data`).toBeGreaterThan(0);
    problems.push(...(await tableProblems(harness, table, records)));
  }
  expect(problems).toEqual([]);
  const state = openStateStore({ file: settings.stateFile, clock: systemClock });
  try {
    const backfill = state.kv.get('mirror-backfill', 'bi-mirror') as { reason: string } | null;
    expect(backfill?.reason).toMatch(
      key === 'enterprise' ? /^loaded from export / : /no bulk_export feature/,
    );
    expect(state.deadLetters.countOpen()).toBe(0);
  } finally {
    state.close();
  }
  return rounds;
}

describe('mirror flow under kill -9', () => {
  it(`${KILL_POINTS} kills inside runs, then every table holds exactly the API's records`, async () => {
    const results = await Promise.all([
      scenario('enterprise', 20261122, Math.ceil(KILL_POINTS / 2)),
      scenario('buyer', 20261123, Math.ceil(KILL_POINTS / 2)),
    ]);
    const kills = results.reduce((sum, r) => sum + r.killsInRuns, 0);
    const clean = results.reduce((sum, r) => sum + r.cleanExits, 0);
    // A kill during the backfill: the killed child's last write was marked as one (see child.ts).
    const inBackfill = (results[0]?.killedOutputs ?? []).filter((out) =>
      /backfill write\n(?:writes started\n)?step \d+\n(?:step \d+\n)?$/.test(out),
    ).length;
    console.info(
      `mirror kill -9: ${kills} kills inside runs (${inBackfill} during the export backfill), ${clean} runs not killed`,
    );
    expect(kills).toBeGreaterThanOrEqual(KILL_POINTS);
    expect(inBackfill).toBeGreaterThanOrEqual(BACKFILL_ROUNDS);
    expect(results.every((r) => r.killsBeforeRun === 0)).toBe(true);
  }, 240_000);
});
