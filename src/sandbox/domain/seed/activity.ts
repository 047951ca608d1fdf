/** A month of history for the demo pair: orders in every status, documents, journal lines, sales. */
import { DEMO_SUPPLIER_ACCOUNT_ID } from '../../http/types.js';
import { exportJournalLines } from '../accounting.js';
import { documentInputFromOrder } from '../document-builder.js';
import { approveDocument, disputeDocument, receiveDocument } from '../document-review.js';
import { createDocument } from '../documents.js';
import type { DomainEnv } from '../env.js';
import { milli, money } from '../money.js';
import { acknowledgeOrder, confirmOrder, rejectOrder } from '../order-confirmation.js';
import { cancelOrder, placeOrder } from '../orders.js';
import { upsertItemSales, upsertZReports } from '../sales.js';
import type { Order } from '../types.js';
import type { Random } from './random.js';
import { BRANCH_SEEDS } from '../../../demo-data/index.js';

/** The seed's own clock: days before the sandbox's "now", moved forward a little by every write. */
export interface SeedClock {
  at(daysAgo: number): void;
  tick(): void;
  /** Current seed date (YYYY-MM-DD) and timestamp. */
  date(): string;
  iso(): string;
}

const supplierActor = { type: 'api_client', id: 'cli_demo_supplier_erp', name: 'Supplier ERP' } as const;
const accountingClient = { clientId: 'cli_demo_accounting', clientName: 'Nightly journal sync' };
const DAYS = 30;

export function randomOrderLines(
  env: DomainEnv,
  random: Random,
  count: number,
): { sku: string; quantity: string }[] {
  const skus = Object.keys(env.state.products).filter((sku) => env.state.products[sku]?.deleted_at === null);
  const chosen = new Set<string>();
  while (chosen.size < Math.min(count, skus.length)) chosen.add(random.pick(skus));
  return [...chosen].map((sku) => ({ sku, quantity: String(random.int(1, 24)) }));
}

const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** What happens to an order placed `daysAgo` days ago; recent orders stay pending_approval. */
function playOrder(
  env: DomainEnv,
  random: Random,
  clock: SeedClock,
  order: Order,
  daysAgo: number,
  serial: number,
): void {
  if (daysAgo <= 2) return;
  clock.tick();
  const roll = random.next();
  if (roll < 0.07) return void cancelOrder(env, order.id);
  if (roll < 0.14)
    return void rejectOrder(env, order.id, 'Delivery day not served for this branch.', supplierActor);
  const first = order.lines[0];
  const partial = roll > 0.8 && first !== undefined && milli(first.quantity) > 1000n;
  confirmOrder(
    env,
    order.id,
    partial && first ? { lines: [{ line_id: first.id, quantity_confirmed: '1' }] } : {},
    supplierActor,
  );
  clock.tick();
  if (random.chance(0.85))
    acknowledgeOrder(env, order.id, { external_ref: `SO-${String(40000 + serial)}` }, supplierActor);
  if (serial % 17 === 5) return void cancelOrder(env, order.id);
  if (daysAgo < 5) return;
  clock.tick();
  const type = serial % 4 === 0 ? 'delivery_note' : 'invoice';
  const doc = createDocument(
    env,
    DEMO_SUPPLIER_ACCOUNT_ID,
    documentInputFromOrder(
      order,
      type,
      `${type === 'invoice' ? 'INV' : 'DN'}-${String(70000 + serial)}`,
      clock.date(),
    ),
  );
  if (daysAgo < 9) return;
  clock.tick();
  receiveDocument(env, doc.id, { withDifferences: serial % 5 === 0 });
  if (serial % 11 === 0) return void disputeDocument(env, doc.id);
  if (daysAgo < 13) return;
  clock.tick();
  const { lines } = approveDocument(env, doc.id, false);
  if (daysAgo >= 20 && lines.length > 0) {
    clock.tick();
    exportJournalLines(
      env,
      {
        journal_line_ids: lines.map((line) => line.id),
        target: 'hashavshevet',
        external_ref: `NIGHT-${clock.date()}`,
      },
      accountingClient,
    );
  }
}

function salesOfDay(
  random: Random,
  clock: SeedClock,
  withItems: boolean,
): { reports: unknown[]; items: unknown[] } {
  const reports: unknown[] = [];
  const items: unknown[] = [];
  const closedAt = `${clock.date()}T22:30:00Z`;
  BRANCH_SEEDS.forEach((branch, index) => {
    const zNumber = String(Date.parse(`${clock.date()}T00:00:00Z`) / 86_400_000 - 20000 + index * 1000);
    const dineIn = BigInt(random.int(600_000, 1_800_000));
    const takeAway = BigInt(random.int(100_000, 600_000));
    reports.push({
      branch_id: branch.id,
      z_number: zNumber,
      closed_at: closedAt,
      total_before_vat: money(dineIn + takeAway),
      orders_count: random.int(80, 260),
      dine_in_total: money(dineIn),
      take_away_total: money(takeAway),
      tips: money(BigInt(random.int(20_000, 90_000))),
    });
    if (!withItems) return;
    for (let line = 1; line <= 5; line += 1) {
      const price = BigInt(random.int(2_900, 12_900));
      const quantity = BigInt(random.int(5, 60));
      items.push({
        branch_id: branch.id,
        z_number: zNumber,
        value_date: closedAt,
        item_code: `MENU-${line}`,
        item_name: ['Shakshuka', 'Hummus plate', 'Schnitzel', 'Green salad', 'Lemonade'][line - 1],
        quantity: String(quantity),
        unit_price: money(price),
        total: money(price * quantity),
        line_number: line,
        main_category: line === 5 ? 'Drinks' : 'Food',
      });
    }
  });
  return { reports, items };
}

/** `eachDay` adds the buyer's own activity of that day, so seeded timestamps keep increasing. */
export function seedActivity(
  env: DomainEnv,
  random: Random,
  clock: SeedClock,
  eachDay: (daysAgo: number) => void,
): void {
  const branchIds = BRANCH_SEEDS.map((branch) => branch.id);
  let serial = 0;
  for (let daysAgo = DAYS - 1; daysAgo >= 0; daysAgo -= 1) {
    clock.at(daysAgo);
    const sales = salesOfDay(random, clock, daysAgo < 3);
    upsertZReports(env, sales.reports);
    if (sales.items.length > 0) upsertItemSales(env, sales.items);
    const ordersToday = random.int(1, 2);
    for (let n = 0; n < ordersToday; n += 1) {
      serial += 1;
      clock.tick();
      const order = placeOrder(env, {
        branchId: random.pick(branchIds),
        purchaseType: random.chance(0.8) ? 'FC' : random.pick(['MK', 'EV', 'OC']),
        lines: randomOrderLines(env, random, random.int(3, 9)),
        deliveryDate: addDays(clock.date(), 2),
      });
      playOrder(env, random, clock, order, daysAgo, serial);
    }
    eachDay(daysAgo);
  }
  clock.tick();
  const lines = randomOrderLines(env, random, 4);
  placeOrder(env, {
    branchId: 'br_tlv',
    purchaseType: 'FC',
    lines,
    deliveryDate: addDays(clock.date(), 3),
    status: 'waiting_to_send',
  });
  placeOrder(env, {
    branchId: 'br_hfa',
    purchaseType: 'EV',
    lines,
    deliveryDate: addDays(clock.date(), 5),
    status: 'draft',
  });
}
