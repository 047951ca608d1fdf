import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createApiClient, NetworkApiError, type ApiClient } from '../../../src/client/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { ConnectorError, type OrderSink } from '../../../src/connector-contract/index.js';
import { createOrdersJob, ordersFlow } from '../../../src/flows/orders/index.js';
import type { Mappings } from '../../../src/plugin/index.js';
import type { Job } from '../../../src/engine/index.js';
import {
  buyerSendsOrders,
  DEMO_SHIP_TO,
  openOrdersWorld,
  silentLogger,
  type OrdersWorld,
} from './harness.js';

interface ErpHeader {
  ORDNAME: string;
  CUSTNAME: string;
  SHIPTO: string | null;
  PURCHTYPE: string | null;
  ORDSTATUS: string | null;
  DUEDATE: string;
  WINDOWFROM: string | null;
  API_ORDER_ID: string;
}

let world: OrdersWorld;
/** Orders from before the test began (the sandbox's seeded history) are left out unless a test asks for them. */
let startedAt: string;

function ordersJob(options: Record<string, unknown> = {}, mappings?: Mappings): Job {
  return ordersFlow.create(
    {
      name: 'orders',
      connector: 'erp',
      options: ordersFlow.options.parse({ start_from: startedAt, ...options }),
    },
    world.deps(mappings),
  );
}

async function erpOrder(apiOrderId: string): Promise<ErpHeader[]> {
  return world.erpRows<ErpHeader>('SELECT * FROM ORDERS WHERE API_ORDER_ID = :id', { id: apiOrderId });
}

async function erpLines(
  erpNumber: string,
): Promise<Array<{ PARTNAME: string; TQUANT: string; API_LINE_ID: string }>> {
  return world.erpRows(
    'SELECT PARTNAME, TQUANT, API_LINE_ID FROM ORDERITEMS WHERE ORDNAME = :n ORDER BY LINE',
    {
      n: erpNumber,
    },
  );
}

beforeEach(async () => {
  world = await openOrdersWorld();
  startedAt = new Date().toISOString();
});

afterEach(async () => {
  await world.close();
});

describe('orders flow against the sandbox and the demo ERP', () => {
  it('writes each new order once with its lines and acknowledges it with the ERP number', async () => {
    const ids = await buyerSendsOrders(world.sandbox, { count: 3, branch_id: 'br_tlv', purchase_type: 'MK' });
    const job = ordersJob();
    const first = await world.run(job);
    expect(first.outcome).toBe('ok');
    expect(first.counts['written']).toBe(3);
    for (const id of ids) {
      const [header, ...more] = await erpOrder(id);
      expect(more).toHaveLength(0);
      expect(header?.CUSTNAME).toBe('C-10042');
      expect(header?.SHIPTO).toBe('TLV01');
      expect(header?.PURCHTYPE).toBe('MK');
      const apiOrder = await world.api.orders.get(id);
      const lines = await erpLines(header?.ORDNAME ?? '');
      expect(lines.map((line) => line.API_LINE_ID)).toEqual(apiOrder.lines?.map((line) => line.id));
      expect(lines.map((line) => line.PARTNAME)).toEqual(apiOrder.lines?.map((line) => line.sku));
      expect(apiOrder.external_ref).toBe(header?.ORDNAME);
    }
    // The acknowledgement changed updated_at: the next runs see new versions and must not write or ack again.
    await world.run(job);
    await world.run(job);
    const tallies = await world.tallies();
    for (const id of ids) {
      expect(await erpOrder(id)).toHaveLength(1);
      expect(tallies[id]?.acknowledgements).toBe(1);
    }
  });

  it('syncs the seeded history: active orders without an external_ref land, the rest are left alone', async () => {
    const listed = [];
    for await (const order of world.api.orders.list({ limit: 200 }).items()) listed.push(order);
    const job = ordersJob({ start_from: null });
    const result = await world.run(job);
    expect(result.outcome).toBe('ok');
    const expected = listed.filter(
      (order) =>
        ['pending_approval', 'approved', 'partially_approved'].includes(order.status) &&
        (order.external_ref ?? null) === null,
    );
    expect(expected.length).toBeGreaterThan(0);
    const rows = await world.erpRows<{ API_ORDER_ID: string }>(
      'SELECT API_ORDER_ID FROM ORDERS WHERE API_ORDER_ID IS NOT NULL ORDER BY API_ORDER_ID',
    );
    expect(rows.map((row) => row.API_ORDER_ID)).toEqual(expected.map((order) => order.id).sort());
  });

  it('applies updates and cancellations, including cancelled_after_approval', async () => {
    const [pending, approved] = await buyerSendsOrders(world.sandbox, { count: 2, branch_id: 'br_hfa' });
    if (pending === undefined || approved === undefined) throw new Error('sandbox sent no orders');
    const job = ordersJob();
    await world.run(job);
    await world.api.orders.confirm(approved);
    await world.sandbox.control.action('touch_orders_same_timestamp', { count: 2 });
    const touched = await world.run(job);
    expect(touched.counts['updated']).toBeGreaterThanOrEqual(1);
    const [header] = await erpOrder(pending);
    expect(header?.WINDOWFROM).toBe('07:00');

    await world.sandbox.control.action('buyer_cancel_order', { order_id: pending });
    await world.sandbox.control.action('buyer_cancel_order', { order_id: approved });
    expect((await world.api.orders.get(approved)).status).toBe('cancelled_after_approval');
    const cancelled = await world.run(job);
    expect(cancelled.counts['cancelled']).toBe(2);
    for (const id of [pending, approved]) {
      const [row] = await erpOrder(id);
      expect(row?.ORDSTATUS).toBe('Cancelled');
    }
  });

  it('leaves updates and cancellations alone when configured to ignore them', async () => {
    const [id] = await buyerSendsOrders(world.sandbox, { count: 1, branch_id: 'br_tlv' });
    if (id === undefined) throw new Error('sandbox sent no order');
    const job = ordersJob({ on_update: 'ignore', on_cancel: 'ignore' });
    await world.run(job);
    await world.sandbox.control.action('touch_orders_same_timestamp', { count: 1 });
    await world.sandbox.control.action('buyer_cancel_order', { order_id: id });
    const result = await world.run(job);
    expect(result.counts['updated'] ?? 0).toBe(0);
    expect(result.counts['cancelled'] ?? 0).toBe(0);
    const [row] = await erpOrder(id);
    expect(row?.ORDSTATUS).not.toBe('Cancelled');
    expect(row?.WINDOWFROM).not.toBe('07:00');
  });

  it('files an update as a dead letter with on_update: dead_letter, and applies it on an operator retry', async () => {
    const [id] = await buyerSendsOrders(world.sandbox, { count: 1, branch_id: 'br_tlv' });
    if (id === undefined) throw new Error('sandbox sent no order');
    const job = ordersJob({ on_update: 'dead_letter' });
    await world.run(job);
    await world.sandbox.control.action('touch_orders_same_timestamp', { count: 1 });
    await world.run(job);
    const [letter] = world.state.deadLetters.list({ flow: 'orders' });
    expect(letter?.recordKey).toBe(id);
    expect(letter?.reason).toMatch(
      /changed after it was written to the ERP as SO\d+; on_update is dead_letter/,
    );
    expect(world.state.deadLetters.replay({ flow: 'orders' })).toBe(1);
    const retried = await world.run(job);
    expect(retried.counts['replayed']).toBe(1);
    expect((await erpOrder(id))[0]?.WINDOWFROM).toBe('07:00');
    expect(world.state.deadLetters.countOpen('orders')).toBe(0);
  });

  it('dead-letters an order whose buyer has no ERP customer, and lands it once the mapping is fixed', async () => {
    await world.api.supplierBuyers.update('byr_demo', { customer_number: '' });
    const [id] = await buyerSendsOrders(world.sandbox, { count: 1, branch_id: 'br_tlv' });
    if (id === undefined) throw new Error('sandbox sent no order');
    const broken = await world.run(ordersJob());
    expect(broken.counts['deadLettered']).toBe(1);
    const [letter] = world.state.deadLetters.list({ flow: 'orders' });
    expect(letter?.reason).toBe(
      'no ERP customer for buyer byr_demo "Shulchan Restaurants Group Ltd" (customer_number "", erp_ref null, not in mappings.buyers)',
    );
    expect(await erpOrder(id)).toHaveLength(0);

    // Without a retry the fixed mapping changes nothing: the letter waits for the operator.
    const fixed = ordersJob({}, { branches: DEMO_SHIP_TO, buyers: { byr_demo: 'C-10057' } });
    await world.run(fixed);
    expect(await erpOrder(id)).toHaveLength(0);

    expect(world.state.deadLetters.replay({ flow: 'orders' })).toBe(1);
    const replayed = await world.run(fixed);
    expect(replayed.counts['replayed']).toBe(1);
    const [row] = await erpOrder(id);
    expect(row?.CUSTNAME).toBe('C-10057');
    expect(world.state.deadLetters.countOpen('orders')).toBe(0);
    expect((await world.tallies())[id]?.acknowledgements).toBe(1);
  });

  it('names an unmapped branch and, with unmapped_item: dead_letter, an unmapped SKU', async () => {
    const [id] = await buyerSendsOrders(world.sandbox, {
      count: 1,
      branch_id: 'br_bsh',
      lines: [{ sku: 'VEG-0001', quantity: '2' }],
    });
    if (id === undefined) throw new Error('sandbox sent no order');
    await world.run(ordersJob({ unmapped_item: 'dead_letter' }, { branches: { br_tlv: 'TLV01' } }));
    const [letter] = world.state.deadLetters.list({ flow: 'orders' });
    expect(letter?.reason).toContain('no ship-to for branch br_bsh "Be');
    expect(letter?.reason).toContain('(not in mappings.branches)');
    expect(letter?.reason).toContain('no ERP item for SKU VEG-0001');
    expect(await erpOrder(id)).toHaveLength(0);
  });

  it('does not let a quarantined API item block the page, and recovers it on retry', async () => {
    const job = ordersJob({ overlap_ms: 0 });
    await world.run(job);
    const ids = await buyerSendsOrders(world.sandbox, { count: 3, branch_id: 'br_tlv' });
    await world.sandbox.control.action('corrupt_next_list_item', { count: 1 });
    const result = await world.run(job);
    const corrupted = ((await world.sandbox.control.state())['corruptedItemIds'] as string[])[0] ?? '';
    expect(ids).toContain(corrupted);
    expect(result.outcome).toBe('ok');
    expect(result.counts['deadLettered']).toBe(1);
    expect(result.counts['written']).toBe(2);
    const [letter] = world.state.deadLetters.list({ flow: 'orders' });
    expect(letter?.recordKey).toBe(corrupted);
    expect(letter?.reason).toMatch(/does not match the contract/);
    expect(await erpOrder(corrupted)).toHaveLength(0);
    for (const id of ids.filter((value) => value !== corrupted)) expect(await erpOrder(id)).toHaveLength(1);
    world.state.deadLetters.replay({ flow: 'orders' });
    await world.run(job);
    expect(await erpOrder(corrupted)).toHaveLength(1);
    expect((await world.tallies())[corrupted]?.acknowledgements).toBe(1);
    expect(world.state.deadLetters.countOpen('orders')).toBe(0);
  });

  it('tolerates an unknown status and unknown fields: the order waits as a dead letter', async () => {
    const result = (await world.sandbox.control.action('add_unknown_enum', {
      status: 'on_hold_by_buyer',
    })) as {
      order_id: string;
    };
    const run = await world.run(ordersJob());
    // The run goes on past the order; as the only order it had to write went to dead letters, it is "failed".
    expect(run.outcome).toBe('failed');
    expect(run.error).toBe('delivered nothing: 1 order held back');
    const letter = world.state.deadLetters.get('orders', result.order_id);
    expect(letter?.reason).toContain('status "on_hold_by_buyer"');
    expect(await erpOrder(result.order_id)).toHaveLength(0);
  });

  it('sees orders that share one timestamp across pages and late commits inside the overlap', async () => {
    await buyerSendsOrders(world.sandbox, { count: 4, branch_id: 'br_tlv' });
    // The late order is stamped 5 s in the past, possibly before this test began.
    const startFrom = new Date(Date.parse(startedAt) - 30_000).toISOString();
    const job = ordersJob({ page_size: 2, overlap_ms: 60_000, start_from: startFrom });
    await world.run(job);
    const tie = (await world.sandbox.control.action('touch_orders_same_timestamp', { count: 7 })) as {
      order_ids: string[];
    };
    const late = (await world.sandbox.control.action('insert_late_order', { lag_ms: 5_000 })) as {
      order_id: string;
    };
    const result = await world.run(job);
    expect(result.outcome).toBe('ok');
    for (const id of [...tie.order_ids.slice(-4), late.order_id]) expect(await erpOrder(id)).toHaveLength(1);
    const again = await world.run(job);
    expect(again.counts['written'] ?? 0).toBe(0);
    expect((await world.tallies())[late.order_id]?.acknowledgements).toBe(1);
  });

  it('converges to the same end state under 5xx, connection resets and 429 bursts', async () => {
    const ids = await buyerSendsOrders(world.sandbox, { count: 12 });
    await world.sandbox.control.setFaults({
      error_rate: 0.15,
      reset_rate: 0.05,
      rate_limit_burst: 5,
      seed: 7,
    });
    const job = ordersJob({ page_size: 3 });
    const converged = async () => {
      const tallies = await world.tallies();
      const rows = await Promise.all(ids.map(async (id) => (await erpOrder(id)).length));
      return rows.every((n) => n === 1) && ids.every((id) => tallies[id]?.acknowledgements === 1);
    };
    for (let attempt = 0; attempt < 40 && !(await converged()); attempt += 1) await world.run(job);
    // The faults were felt: 500s, 429s and dropped connections were answered along the way.
    const statuses = new Set(world.calls.map((call) => call.status));
    expect([...statuses]).toEqual(expect.arrayContaining([500, 429, null]));
    await world.sandbox.control.clearFaults();
    await world.run(job);
    const tallies = await world.tallies();
    for (const id of ids) {
      expect(await erpOrder(id)).toHaveLength(1);
      expect(tallies[id]?.acknowledgements).toBe(1);
      const [row] = await erpOrder(id);
      expect((await world.api.orders.get(id)).external_ref).toBe(row?.ORDNAME);
    }
    expect(world.state.deadLetters.countOpen('orders')).toBe(0);
  });

  it('turns a burst of duplicate triggers into no double writes', async () => {
    const ids = await buyerSendsOrders(world.sandbox, { count: 5 });
    const job = ordersJob();
    const results = await Promise.all(Array.from({ length: 6 }, () => world.run(job)));
    expect(results.some((result) => result.outcome === 'ok')).toBe(true);
    const tallies = await world.tallies();
    for (const id of ids) {
      expect(await erpOrder(id)).toHaveLength(1);
      expect(tallies[id]?.acknowledgements).toBe(1);
    }
  });
});

describe('orders flow crash windows, injected in-process', () => {
  it('adopts an order the ERP committed just before a crash, and sends a lost acknowledgement again', async () => {
    const ids = await buyerSendsOrders(world.sandbox, { count: 2, branch_id: 'br_tlv' });
    const [first, second] = ids;
    if (first === undefined || second === undefined) throw new Error('sandbox sent no orders');
    const sink = world.erp.capabilities.orderSink;
    if (sink === undefined) throw new Error('the demo ERP has no order sink');
    // The ERP commits the first order, then the process "dies" before the ledger or the ack.
    let crashAfterCommit = true;
    const crashingSink: OrderSink = {
      ...sink,
      findOrder: (id) => sink.findOrder(id),
      applyOrderUpdate: (order) => sink.applyOrderUpdate(order),
      cancelOrder: (id, reason) => sink.cancelOrder(id, reason),
      writeOrder: async (order) => {
        const result = await sink.writeOrder(order);
        if (crashAfterCommit) {
          crashAfterCommit = false;
          throw new ConnectorError('connector_unreachable', 'connection lost after commit', {
            connector: 'erp',
            retryable: true,
          });
        }
        return result;
      },
    };
    // The API records the second order's acknowledgement, but the answer never arrives.
    let loseAck = true;
    const lossyApi = {
      ...world.api,
      orders: {
        ...world.api.orders,
        acknowledge: async (...args: Parameters<ApiClient['orders']['acknowledge']>) => {
          const order = await world.api.orders.acknowledge(...args);
          if (loseAck && args[0] === second) {
            loseAck = false;
            throw new NetworkApiError({
              status: 0,
              code: 'network_error',
              message: 'socket hang up',
              method: 'POST',
              path: `/supplier/orders/${second}/acknowledge`,
              retryable: true,
            });
          }
          return order;
        },
      },
    } as ApiClient;
    const job = createOrdersJob({
      name: 'orders',
      connectorName: 'erp',
      api: lossyApi,
      sink: crashingSink,
      options: ordersFlow.options.parse({ start_from: startedAt }),
      mappings: { branches: DEMO_SHIP_TO },
    });
    const crashed = await world.run(job);
    expect(crashed.outcome).toBe('failed');
    expect(await erpOrder(first)).toHaveLength(1);
    const lostAck = await world.run(job);
    expect(lostAck.outcome).toBe('failed');
    expect(lostAck.counts['recovered']).toBe(1);
    const settled = await world.run(job);
    expect(settled.outcome).toBe('ok');
    const tallies = await world.tallies();
    for (const id of ids) {
      const rows = await erpOrder(id);
      expect(rows).toHaveLength(1);
      expect(tallies[id]?.acknowledgements).toBe(1);
      expect((await world.api.orders.get(id)).external_ref).toBe(rows[0]?.ORDNAME);
    }
  });
});

describe('orders flow: dry run and secrets', () => {
  it('reports what it would write and dead-letter in a dry run, and changes nothing', async () => {
    const ids = [
      ...(await buyerSendsOrders(world.sandbox, { count: 2, branch_id: 'br_tlv' })),
      ...(await buyerSendsOrders(world.sandbox, { count: 1, branch_id: 'br_rnn' })),
    ];
    const job = ordersJob({}, { branches: { br_tlv: 'TLV01' } });
    const result = await job.run({
      signal: new AbortController().signal,
      budgetMs: 60_000,
      dryRun: true,
      logger: silentLogger,
      clock: systemClock,
      state: world.state,
      trigger: 'cli',
    });
    expect(result.counts['would_write']).toBe(2);
    expect(result.counts['would_dead_letter']).toBe(1);
    // The order a person can find by its number, with the id `dead-letters` commands take.
    const held = await world.api.orders.get(ids[2] ?? '');
    expect(result.error).toContain(`would become dead letters: order ${held.number} (${held.id}): `);
    for (const id of ids) expect(await erpOrder(id)).toHaveLength(0);
    expect(world.state.cursors.get('orders:/supplier/orders')).toBeNull();
    expect(world.state.deadLetters.countOpen()).toBe(0);
    const tallies = await world.tallies();
    expect(ids.map((id) => tallies[id]?.acknowledgements)).toEqual([0, 0, 0]);
  });

  it('keeps the API key out of run errors, dead letters and logs', async () => {
    await buyerSendsOrders(world.sandbox, { count: 1, branch_id: 'br_tlv' });
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const revokedKey = world.sandbox.keys.revoked;
    const api = createApiClient({ baseUrl: world.sandbox.baseUrl, apiKey: revokedKey, logger });
    try {
      const job = ordersFlow.create(
        { name: 'orders', connector: 'erp', options: ordersFlow.options.parse({ start_from: startedAt }) },
        { ...world.deps(), api, logger },
      );
      const result = await job.run({
        signal: new AbortController().signal,
        budgetMs: 60_000,
        dryRun: false,
        logger,
        clock: systemClock,
        state: world.state,
        trigger: 'cli',
      });
      expect(result.outcome).toBe('failed');
      expect(result.error).toMatch(/401|revoked/);
      const everything = [result.error ?? '', ...lines, JSON.stringify(world.state.deadLetters.list())].join(
        '\n',
      );
      expect(everything).not.toContain(revokedKey);
      expect(everything).not.toContain(world.sandbox.keys.supplier);
    } finally {
      await api.close();
    }
  });
});
