import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runJob, type Job, type RunResult, type RunTrigger } from '../../../src/engine/index.js';
import { ordersFlow } from '../../../src/flows/orders/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { buyerSendsOrders, openOrdersWorld, silentLogger, type OrdersWorld } from './harness.js';

let world: OrdersWorld;
let job: Job;

beforeEach(async () => {
  world = await openOrdersWorld();
  const startFrom = new Date(Date.now() - 30_000).toISOString();
  job = ordersFlow.create(
    {
      name: 'orders',
      connector: 'erp',
      options: ordersFlow.options.parse({ start_from: startFrom, page_size: 2, overlap_ms: 60_000 }),
    },
    world.deps(),
  );
});

afterEach(async () => {
  await world.close();
});

function run(trigger: RunTrigger): Promise<RunResult> {
  return runJob(job, {
    signal: new AbortController().signal,
    budgetMs: 60_000,
    dryRun: false,
    logger: silentLogger,
    clock: systemClock,
    state: world.state,
    trigger,
  });
}

async function erpCount(apiOrderId: string): Promise<number> {
  const rows = await world.erpRows('SELECT 1 FROM ORDERS WHERE API_ORDER_ID = :id', { id: apiOrderId });
  return rows.length;
}

const LIST = '/supplier/orders';
const ACK = '/supplier/orders/{order_id}/acknowledge';

describe('orders run nudged by a webhook', () => {
  it('writes the new order after one short page, and the pass still finds a late commit in the window', async () => {
    const earlier = await buyerSendsOrders(world.sandbox, { count: 6, branch_id: 'br_tlv' });
    expect((await run('schedule')).outcome).toBe('ok');
    const [fresh] = await buyerSendsOrders(world.sandbox, { count: 1, branch_id: 'br_tlv' });
    if (fresh === undefined) throw new Error('no order sent');
    const late = (await world.sandbox.control.action('insert_late_order', { lag_ms: 5_000 })) as {
      order_id: string;
    };
    world.calls.length = 0;

    const result = await run('webhook');

    expect(result.outcome).toBe('ok');
    const routes = world.calls.map((call) => call.route).filter((route) => route === LIST || route === ACK);
    // The head (one list call from the watermark) comes before the window, whose six older orders take pages.
    expect(routes.slice(0, 2)).toEqual([LIST, ACK]);
    expect(routes.filter((route) => route === LIST).length).toBeGreaterThan(3);
    for (const id of [...earlier, fresh, late.order_id]) expect(await erpCount(id)).toBe(1);
    const tallies = await world.tallies();
    for (const id of [fresh, late.order_id]) expect(tallies[id]?.acknowledgements).toBe(1);

    const again = await run('webhook');
    expect(again.counts['written'] ?? 0).toBe(0);
    expect((await world.tallies())[fresh]?.acknowledgements).toBe(1);
  });

  it('reads the window first when the run was not nudged by a webhook', async () => {
    await buyerSendsOrders(world.sandbox, { count: 6, branch_id: 'br_tlv' });
    await run('schedule');
    await buyerSendsOrders(world.sandbox, { count: 1, branch_id: 'br_tlv' });
    world.calls.length = 0;

    await run('schedule');

    const routes = world.calls.map((call) => call.route).filter((route) => route === LIST || route === ACK);
    expect(routes.indexOf(ACK)).toBeGreaterThan(2);
  });
});
