import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NetworkApiError, type ApiClient } from '../../../src/client/index.js';
import { ConnectorError, type ConfirmationSource } from '../../../src/connector-contract/index.js';
import {
  orderConfirmFlow,
  createOrderConfirmJob,
  orderConfirmOptionsSchema,
} from '../../../src/flows/order-confirm/index.js';
import { ordersFlow } from '../../../src/flows/orders/index.js';
import type { Mappings } from '../../../src/plugin/index.js';
import { erpConfirms as recordConfirmation, type LineChange } from './erp-confirmations.js';
import { buyerSendsOrders, DEMO_SHIP_TO, openOrdersWorld, type OrdersWorld } from '../orders/harness.js';

let world: OrdersWorld;

/** Sends orders as the buyer and lets the orders flow put them in the ERP; returns API id -> ERP number. */
async function ordersInErp(count: number): Promise<Array<{ id: string; erp: string }>> {
  const startFrom = new Date(Date.now() - 1000).toISOString();
  const ids = await buyerSendsOrders(world.sandbox, { count, branch_id: 'br_tlv' });
  const job = ordersFlow.create(
    { name: 'orders', connector: 'erp', options: ordersFlow.options.parse({ start_from: startFrom }) },
    world.deps(),
  );
  await world.run(job);
  const result = [];
  for (const id of ids) {
    const [row] = await world.erpRows<{ ORDNAME: string }>(
      'SELECT ORDNAME FROM ORDERS WHERE API_ORDER_ID = :id',
      { id },
    );
    if (row === undefined) throw new Error(`order ${id} did not reach the ERP`);
    result.push({ id, erp: row.ORDNAME });
  }
  return result;
}

function erpConfirms(
  erpOrder: string,
  kind: 'full' | 'partial' | 'reject',
  lines: Record<number, LineChange> = {},
  reason: string | null = null,
): Promise<string> {
  return recordConfirmation(world.erp.driver, erpOrder, kind, lines, reason);
}

async function sentAt(ref: string): Promise<string | null> {
  const [row] = await world.erpRows<{ API_SENT_AT: string | null }>(
    'SELECT API_SENT_AT FROM ORDCONFIRM WHERE CONFNUM = :ref',
    {
      ref,
    },
  );
  return row?.API_SENT_AT ?? null;
}

function confirmJob(mappings: Mappings = { branches: DEMO_SHIP_TO }) {
  return orderConfirmFlow.create(
    { name: 'order-confirm', connector: 'erp', options: orderConfirmFlow.options.parse({}) },
    world.deps(mappings),
  );
}

beforeEach(async () => {
  world = await openOrdersWorld();
});

afterEach(async () => {
  await world.close();
});

describe('order-confirm flow', () => {
  it('sends full, partial (with a substitute) and rejected confirmations once and marks them sent', async () => {
    const [full, partial, rejected] = await ordersInErp(3);
    if (full === undefined || partial === undefined || rejected === undefined)
      throw new Error('orders missing');
    const fullRef = await erpConfirms(full.erp, 'full');
    const partialRef = await erpConfirms(partial.erp, 'partial', {
      1: { quantity: '0', remark: 'out of stock' },
      2: { substitute: 'ERP-SUB-1' },
    });
    const rejectRef = await erpConfirms(rejected.erp, 'reject', {}, 'Delivery day not served');
    const job = confirmJob({ branches: DEMO_SHIP_TO, skus: { 'VEG-0002': 'ERP-SUB-1' } });
    const result = await world.run(job);
    expect(result.outcome).toBe('ok');
    expect(result.counts['sent']).toBe(3);

    const fullOrder = await world.api.orders.get(full.id);
    expect(fullOrder.status).toBe('approved');
    expect(fullOrder.lines?.every((line) => line.quantity_confirmed === line.quantity)).toBe(true);
    const partialOrder = await world.api.orders.get(partial.id);
    expect(partialOrder.status).toBe('partially_approved');
    expect(partialOrder.lines?.[0]?.quantity_confirmed).toMatch(/^0(\.0*)?$/);
    expect(partialOrder.lines?.[0]?.notes).toBe('out of stock');
    expect(partialOrder.lines?.[1]?.substitute_sku).toBe('VEG-0002');
    const rejectedOrder = await world.api.orders.get(rejected.id);
    expect(rejectedOrder.status).toBe('rejected');
    expect(rejectedOrder.notes).toContain('Delivery day not served');

    for (const ref of [fullRef, partialRef, rejectRef]) expect(await sentAt(ref)).not.toBeNull();
    const again = await world.run(job);
    expect(again.counts['pending']).toBe(0);
    const tallies = await world.tallies();
    expect(tallies[full.id]?.confirmations).toBe(1);
    expect(tallies[partial.id]?.confirmations).toBe(1);
    expect(tallies[rejected.id]?.rejections).toBe(1);
  });

  it('reconciles a 409 when the order already shows the decision, and dead-letters one it contradicts', async () => {
    const [confirmedInUi, cancelled, answeredOtherwise] = await ordersInErp(3);
    if (confirmedInUi === undefined || cancelled === undefined || answeredOtherwise === undefined)
      throw new Error('orders missing');
    const current = await world.api.orders.get(confirmedInUi.id);
    const firstLine = current.lines?.[0];
    if (firstLine === undefined) throw new Error('order without lines');
    // Someone confirmed it in the web app with the same quantities the ERP holds, without the ERP's remark.
    await world.api.orders.confirm(confirmedInUi.id, {
      lines: [{ line_id: firstLine.id, quantity_confirmed: '1' }],
    });
    const sameRef = await erpConfirms(confirmedInUi.erp, 'partial', {
      1: { quantity: '1', remark: 'short' },
    });
    await world.sandbox.control.action('buyer_cancel_order', { order_id: cancelled.id });
    const refusedRef = await erpConfirms(cancelled.erp, 'full');
    // Someone confirmed this one short in the web app, while the ERP confirms it in full.
    const otherLine = (await world.api.orders.get(answeredOtherwise.id)).lines?.[0];
    if (otherLine === undefined) throw new Error('order without lines');
    await world.api.orders.confirm(answeredOtherwise.id, {
      lines: [{ line_id: otherLine.id, quantity_confirmed: '0' }],
    });
    const contradictedRef = await erpConfirms(answeredOtherwise.erp, 'full');

    const job = confirmJob();
    const result = await world.run(job);
    expect(result.counts['reconciled']).toBe(1);
    expect(result.counts['deadLettered']).toBe(2);
    expect(await sentAt(sameRef)).not.toBeNull();
    expect(await sentAt(refusedRef)).toBeNull();
    const letter = world.state.deadLetters.get('order-confirm', refusedRef);
    expect(letter?.reason).toMatch(
      /was refused: order PO-[\d-]+ \(ord_\w+\) is cancelled in the API; the order is closed there and takes no confirmation: tell the buyer if it must go ahead, then discard this dead letter$/,
    );
    expect(world.state.deadLetters.get('order-confirm', contradictedRef)?.reason).toMatch(
      new RegExp(
        `is partially_approved in the API; it was answered already with other lines .*compare the order there with ERP confirmation ${contradictedRef}, correct the ERP to match, then discard this dead letter$`,
      ),
    );

    // The letter is held, not retried every run, until the operator queues it again.
    const held = await world.run(job);
    expect(held.counts['held']).toBe(2);
    expect(world.state.deadLetters.get('order-confirm', refusedRef)?.attempts).toBe(1);
    world.state.deadLetters.replay({ flow: 'order-confirm' });
    const retried = await world.run(job);
    expect(retried.counts['deadLettered']).toBe(2);
    expect(world.state.deadLetters.get('order-confirm', refusedRef)?.attempts).toBe(2);
  });

  it('ends failed when every confirmation was held back, and the run is no success (docs/operations.md, "Run outcomes")', async () => {
    const orders = await ordersInErp(2);
    const refs = [];
    for (const order of orders) {
      await world.sandbox.control.action('buyer_cancel_order', { order_id: order.id });
      refs.push(await erpConfirms(order.erp, 'full'));
    }
    const result = await world.run(confirmJob());
    expect(result).toMatchObject({
      outcome: 'failed',
      counts: { delivered: 0, held_back: 2, deadLettered: 2 },
    });
    expect(result.error).toMatch(/^delivered nothing: all 2 confirmations held back/);
    for (const ref of refs) expect(await sentAt(ref)).toBeNull();
    const [record] = world.state.runs.recent('order-confirm', 1);
    expect(record).toMatchObject({ outcome: 'failed', counts: { delivered: 0, held_back: 2 } });
    expect(world.state.runs.last('order-confirm', ['ok', 'partial'])).toBeNull();
  });

  it('survives a lost response and a failed ERP mark without confirming twice', async () => {
    const [order] = await ordersInErp(1);
    if (order === undefined) throw new Error('order missing');
    const ref = await erpConfirms(order.erp, 'partial', { 1: { quantity: '1' } });
    const source = world.erp.capabilities.confirmationSource;
    if (source === undefined) throw new Error('the demo ERP offers no confirmations');

    // 1: the API accepts the confirmation but the answer is lost on the way back.
    let loseAnswer = true;
    const lossyApi = {
      orders: {
        ...world.api.orders,
        confirm: async (...args: Parameters<ApiClient['orders']['confirm']>) => {
          const order = await world.api.orders.confirm(...args);
          if (loseAnswer) {
            loseAnswer = false;
            throw new NetworkApiError({
              status: 0,
              code: 'network_error',
              message: 'socket hang up',
              method: 'POST',
              path: '/x',
              retryable: true,
            });
          }
          return order;
        },
      },
    } as Pick<ApiClient, 'orders'>;
    // 2: the ERP cannot record "sent" on the first try.
    let failMark = true;
    const flakySource: ConfirmationSource = {
      listPendingConfirmations: () => source.listPendingConfirmations(),
      markConfirmationSent: async (confirmationRef) => {
        if (failMark) {
          failMark = false;
          throw new ConnectorError('connector_unreachable', 'database went away', {
            connector: 'erp',
            retryable: true,
          });
        }
        await source.markConfirmationSent(confirmationRef);
      },
    };
    const job = createOrderConfirmJob({
      name: 'order-confirm',
      connectorName: 'erp',
      api: lossyApi,
      source: flakySource,
      options: orderConfirmOptionsSchema.parse({}),
      mappings: {},
    });
    const lost = await world.run(job);
    expect(lost.outcome).toBe('failed');
    expect(await sentAt(ref)).toBeNull();
    const unmarked = await world.run(job);
    expect(unmarked.outcome).toBe('failed');
    expect(await sentAt(ref)).toBeNull();
    const marked = await world.run(job);
    expect(marked.outcome).toBe('ok');
    expect(marked.counts['marked']).toBe(1);
    expect(await sentAt(ref)).not.toBeNull();
    expect((await world.tallies())[order.id]?.confirmations).toBe(1);
    expect(world.state.deadLetters.countOpen('order-confirm')).toBe(0);
  });
});
