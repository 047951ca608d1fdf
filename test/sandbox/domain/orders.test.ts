import { describe, expect, it } from 'vitest';
import { strict } from '../../../src/contract/index.js';
import { createHarness, type ProblemLike } from './harness.js';

interface OrderBody {
  id: string;
  status: string;
  updated_at: string;
  external_ref: string | null;
  lines: { id: string; quantity: string; quantity_confirmed: string | null }[];
}
type Tallies = Record<string, { acknowledgements: number; confirmations: number }>;

function sendOne(h: ReturnType<typeof createHarness>): string {
  const sent = h.action<{ order_ids: string[] }>('buyer_send_order', {
    lines: [
      { sku: 'VEG-0001', quantity: '5' },
      { sku: 'DAI-0136', quantity: '2' },
    ],
  });
  const [id] = sent.order_ids;
  if (id === undefined) throw new Error('no order sent');
  return id;
}

describe('order lifecycle', () => {
  it('a sent order reaches the supplier as pending_approval with order.created, in the strict Order shape', async () => {
    const h = createHarness();
    const id = sendOne(h);
    expect(h.events.map((event) => [event.type, event.data.id])).toEqual([['order.created', id]]);
    expect(strict.OrderEventData.safeParse(h.events[0]?.data).success).toBe(true);
    const reply = await h.call('GET', `/supplier/orders/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.headers?.['ETag']).toMatch(/^"[0-9a-f]{40}"$/);
    strict.Order.parse(reply.body);
    expect((reply.body as OrderBody).status).toBe('pending_approval');
    expect(JSON.stringify(reply.body)).not.toContain('expense_account');
  });

  it('an empty confirm approves every line in full; the identical repeat is a no-op; another body conflicts', async () => {
    const h = createHarness();
    const id = sendOne(h);
    h.events.length = 0;
    const first = await h.call('POST', `/supplier/orders/${id}/confirm`, { body: {} });
    const order = strict.Order.parse(first.body) as unknown as OrderBody;
    expect(order.status).toBe('approved');
    expect(order.lines.every((line) => line.quantity_confirmed === line.quantity)).toBe(true);
    expect(h.events.map((event) => event.type).sort()).toEqual(['order.status_changed', 'order.updated']);
    h.clock.advance(1000);
    const again = await h.call('POST', `/supplier/orders/${id}/confirm`, { body: {} });
    expect(again.status).toBe(200);
    expect((again.body as OrderBody).updated_at).toBe(order.updated_at);
    expect(h.events).toHaveLength(2);
    const other = await h.call('POST', `/supplier/orders/${id}/confirm`, {
      body: { notes: 'changed my mind' },
    });
    expect(other.status).toBe(409);
    expect((h.state()['orderTallies'] as Tallies)[id]?.confirmations).toBe(1);
  });

  it('confirming one line below its quantity gives partially_approved; cancelling then gives cancelled_after_approval', async () => {
    const h = createHarness();
    const id = sendOne(h);
    const before = (await h.call('GET', `/supplier/orders/${id}`)).body as OrderBody;
    const line = before.lines[0];
    if (!line) throw new Error('no line');
    const reply = await h.call('POST', `/supplier/orders/${id}/confirm`, {
      body: { lines: [{ line_id: line.id, quantity_confirmed: '3' }] },
    });
    const order = reply.body as OrderBody;
    expect(order.status).toBe('partially_approved');
    expect(order.lines.map((l) => l.quantity_confirmed)).toEqual(['3', '2']);
    h.events.length = 0;
    const cancelled = h.action<{ status: string }>('buyer_cancel_order', { order_id: id });
    expect(cancelled.status).toBe('cancelled_after_approval');
    expect(h.events.map((event) => event.type)).toEqual(['order.updated']);
  });

  it('cancelling a pending order gives cancelled and order.cancelled; confirming it afterwards conflicts', async () => {
    const h = createHarness();
    const id = sendOne(h);
    h.events.length = 0;
    expect(h.action<{ status: string }>('buyer_cancel_order', { order_id: id }).status).toBe('cancelled');
    expect(h.events.map((event) => event.type)).toEqual(['order.cancelled']);
    expect((await h.call('POST', `/supplier/orders/${id}/confirm`, { body: {} })).status).toBe(409);
  });

  it('acknowledge is idempotent for the same external_ref and conflicts for another', async () => {
    const h = createHarness();
    const id = sendOne(h);
    const first = await h.call('POST', `/supplier/orders/${id}/acknowledge`, {
      body: { external_ref: 'SO-1' },
    });
    expect((first.body as OrderBody).external_ref).toBe('SO-1');
    const same = await h.call('POST', `/supplier/orders/${id}/acknowledge`, {
      body: { external_ref: 'SO-1' },
    });
    expect(same.status).toBe(200);
    const other = await h.call('POST', `/supplier/orders/${id}/acknowledge`, {
      body: { external_ref: 'SO-2' },
    });
    expect(other.status).toBe(409);
    expect((h.state()['orderTallies'] as Tallies)[id]?.acknowledgements).toBe(1);
    const missing = await h.call('POST', `/supplier/orders/${id}/acknowledge`, { body: {} });
    expect(missing.status).toBe(422);
    expect((missing.body as ProblemLike).errors).toContainEqual(
      expect.objectContaining({ field: 'external_ref', code: 'required' }),
    );
  });

  it('reject moves pending_approval to rejected, repeats are no-ops, and approved orders cannot be rejected', async () => {
    const h = createHarness();
    const id = sendOne(h);
    expect(
      (
        (await h.call('POST', `/supplier/orders/${id}/reject`, { body: { reason: 'no stock' } }))
          .body as OrderBody
      ).status,
    ).toBe('rejected');
    expect(
      (await h.call('POST', `/supplier/orders/${id}/reject`, { body: { reason: 'no stock' } })).status,
    ).toBe(200);
    const other = sendOne(h);
    await h.call('POST', `/supplier/orders/${other}/confirm`);
    expect(
      (await h.call('POST', `/supplier/orders/${other}/reject`, { body: { reason: 'late' } })).status,
    ).toBe(409);
  });

  it('buyer-only states stay hidden from the supplier until the order is sent', async () => {
    const h = createHarness();
    const scheduled =
      h.action<{ order_ids: string[] }>('buyer_send_order', { status: 'waiting_to_send' }).order_ids[0] ?? '';
    expect((await h.call('GET', `/supplier/orders/${scheduled}`)).status).toBe(404);
    h.action('buyer_send_scheduled_order', { order_id: scheduled });
    expect(((await h.call('GET', `/supplier/orders/${scheduled}`)).body as OrderBody).status).toBe(
      'pending_approval',
    );
  });

  it('every order of the seeded supplier list passes the strict schema, and buyers see expense accounts', async () => {
    const h = createHarness();
    const page = (await h.call('GET', '/supplier/orders', { query: { limit: '200' } })).body as {
      data: unknown[];
    };
    expect(page.data.length).toBeGreaterThan(20);
    for (const order of page.data) strict.Order.parse(order);
    const buyerPage = (await h.call('GET', '/orders', { query: { limit: '200' } })).body as {
      data: unknown[];
    };
    expect(buyerPage.data.length).toBeGreaterThan(page.data.length);
    for (const order of buyerPage.data) strict.Order.parse(order);
    expect(JSON.stringify(buyerPage.data)).toContain('expense_account');
  });
});
