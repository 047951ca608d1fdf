/**
 * What supplier IT is told about orders held back for a missing mapping, from a real orders run: the sandbox over
 * HTTP, a SQLite state file and the demo ERP. An order seen once is not listed again, so the fix names the retry as
 * well as the reload; following it to the letter (the entry added, the letters retried, the next run) puts every
 * held order into the ERP once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, type JobConfig, type NotificationsConfig } from '../../src/config/index.js';
import { ordersFlow } from '../../src/flows/orders/index.js';
import type { Mappings } from '../../src/plugin/index.js';
import { Notifier } from '../../src/notify/index.js';
import { buyerSendsOrders, openOrdersWorld, type OrdersWorld } from '../flows/orders/harness.js';

const CONFIG_FILE = '/etc/supply-sync/supplier.yaml';
const SKU = 'VEG-0001';

const NOTIFICATIONS = parseConfig(
  CONFIG_FILE,
  `api:
  sandbox: embedded
jobs:
  orders:
    flow: orders
notifications:
  instance: warehouse
  channels:
    it:
      type: webhook
      url: https://hooks.example.com/x
  rules:
    - events: [dead_letters]
      channels: [it]
  daily_report:
    at: "00:00"
    channels: [it]
`,
).config.notifications as NotificationsConfig;

let world: OrdersWorld;
let startedAt: string;
beforeEach(async () => {
  world = await openOrdersWorld();
  startedAt = new Date().toISOString();
});
afterEach(async () => {
  await (world as OrdersWorld | undefined)?.close();
});

function ordersJob(mappings: Mappings) {
  return ordersFlow.create(
    {
      name: 'orders',
      connector: 'erp',
      options: ordersFlow.options.parse({ start_from: startedAt, unmapped_item: 'dead_letter' }),
    },
    world.deps(mappings),
  );
}

describe('orders held back for a missing mapping', () => {
  it('are grouped by the missing SKU with a fix that names the reload and the retry, and the fix works', async () => {
    const held = [
      ...(await buyerSendsOrders(world.sandbox, {
        count: 1,
        branch_id: 'br_tlv',
        lines: [{ sku: SKU, quantity: '2' }],
      })),
      // Two lines of the SKU: still one missing value.
      ...(await buyerSendsOrders(world.sandbox, {
        count: 1,
        branch_id: 'br_hrz',
        lines: [
          { sku: SKU, quantity: '5' },
          { sku: SKU, quantity: '1' },
        ],
      })),
    ];
    expect(held).toHaveLength(2);
    // Held back for two reasons (no ship-to either): the SKU's retry must leave it for a person.
    const [other] = await buyerSendsOrders(world.sandbox, {
      count: 1,
      branch_id: 'br_bsh',
      lines: [{ sku: SKU, quantity: '3' }],
    });
    const notifier = new Notifier({
      state: world.state,
      config: NOTIFICATIONS,
      origin: { instance: 'warehouse', config: CONFIG_FILE },
      timezone: 'Asia/Jerusalem',
      jobs: new Map([['orders', { flow: 'orders', connector: 'erp' } as unknown as JobConfig]]),
      watchingSince: Date.now(),
      scrub: (text) => text,
    });
    notifier.derive(Date.now());

    const runId = world.state.runs.start('orders', 'schedule');
    const branches = { br_tlv: 'TLV01', br_hrz: 'HRZ02' };
    const result = await world.run(ordersJob({ branches, skus: {} }));
    world.state.runs.finish(runId, result.outcome, result.counts, null);
    expect(result.counts['deadLettered']).toBe(3);
    const letters = world.state.deadLetters.list({ flow: 'orders' });
    expect(letters.map((letter) => letter.recordKey).sort()).toEqual([...held, other].sort());
    for (const letter of letters.filter((l) => l.recordKey !== other)) {
      expect((letter.record as { missing?: unknown }).missing).toEqual({
        kind: 'SKU',
        table: 'skus',
        key: SKU,
        pickup: 'retry',
      });
    }

    const summary = `2 × SKU value "${SKU}" has no entry in mappings.skus`;
    const fix =
      `To fix: add ${SKU} under mappings.skus in ${CONFIG_FILE}, ` +
      'then run `supply-sync config reload` and `supply-sync dead-letters retry --flow orders --missing skus:VEG-0001`.';
    notifier.derive(Date.now());
    const told = world.state.notifications.list().find((n) => n.event === 'dead_letters');
    const toldText = (JSON.parse(told?.message ?? '{}') as { text?: string }).text ?? '';
    expect(toldText).toContain(`${summary} (for example `);
    // Each order by the number a person finds it by in the web app, with the id `dead-letters` commands take.
    for (const id of [...held, other]) {
      const { number } = await world.api.orders.get(id ?? '');
      expect(number).toMatch(/^PO-/);
      expect(toldText).toContain(`${number} (${id})`);
    }
    expect(toldText).toContain(`). ${fix}\n`);
    expect(notifier.dailyReport(Date.now() + 86_400_000)).toBe(1);
    const report = world.state.notifications.list().find((n) => n.event === 'daily_report');
    const { text } = JSON.parse(report?.message ?? '{}') as { text: string };
    const heldLines = text.split('\n').filter((line) => line.includes('Held back:'));
    expect(heldLines).toHaveLength(2);
    const skuLine = heldLines.find((line) => line.includes(summary));
    expect(skuLine?.endsWith(fix)).toBe(true);
    // The other order's line names both its problems and offers no one-mapping fix.
    const otherLine = heldLines.find((line) => line !== skuLine);
    expect(otherLine).toContain('no ship-to for branch br_bsh');
    expect(otherLine).not.toContain('To fix');

    // The fix, step by step: the reloaded mappings alone change nothing, the retry lands each order once.
    const fixed = ordersJob({ branches, skus: { [SKU]: 'ITEM-VEG-1' } });
    await world.run(fixed);
    expect(world.state.deadLetters.countOpen('orders')).toBe(3);
    expect(world.state.deadLetters.replay({ flow: 'orders', missing: { table: 'skus', key: SKU } })).toBe(2);
    const replayed = await world.run(fixed);
    expect(replayed.counts['replayed']).toBe(2);
    expect(world.state.deadLetters.list({ flow: 'orders' }).map((l) => `${l.recordKey} ${l.status}`)).toEqual(
      [`${other} open`],
    );
    for (const id of held) {
      const rows = await world.erpRows<{ PARTNAME: string }>(
        'SELECT ORDERITEMS.PARTNAME FROM ORDERS JOIN ORDERITEMS ON ORDERITEMS.ORDNAME = ORDERS.ORDNAME WHERE API_ORDER_ID = :id',
        { id },
      );
      expect(new Set(rows.map((row) => row.PARTNAME))).toEqual(new Set(['ITEM-VEG-1']));
      expect((await world.tallies())[id]?.acknowledgements).toBe(1);
    }
  }, 60_000);

  it('files no missing mapping for an order with more than one problem: its reason names them all', async () => {
    const [id] = await buyerSendsOrders(world.sandbox, {
      count: 1,
      branch_id: 'br_bsh',
      lines: [{ sku: SKU, quantity: '2' }],
    });
    await world.run(ordersJob({ branches: { br_tlv: 'TLV01' }, skus: {} }));
    const [letter] = world.state.deadLetters.list({ flow: 'orders' });
    expect(letter?.recordKey).toBe(id);
    expect(letter?.reason).toContain('no ship-to for branch br_bsh');
    expect(letter?.reason).toContain(`no ERP item for SKU ${SKU}`);
    expect((letter?.record as { missing?: unknown }).missing).toBeUndefined();
  }, 60_000);
});
