import { describe, expect, it } from 'vitest';
import { parseLenientAs, strict } from '../../../src/contract/index.js';
import { createHarness } from './harness.js';

interface Order {
  id: string;
  updated_at: string;
  status: string;
}

describe('seed, snapshot and reset', () => {
  it('the same seed and clock give the same data', () => {
    expect(JSON.stringify(createHarness().state())).toBe(JSON.stringify(createHarness().state()));
  });

  it('snapshot survives JSON and restore round-trips every collection', () => {
    const h = createHarness();
    h.action('buyer_send_order', { count: 3 });
    h.action('approve_journal_lines', { count: 5 });
    const saved = JSON.parse(JSON.stringify(h.domain.snapshot())) as unknown;
    const other = createHarness(Date.UTC(2026, 10, 1));
    other.domain.restore(saved);
    expect(other.state()).toEqual(h.state());
    h.action('buyer_send_order', { count: 2 });
    h.domain.restore(saved);
    expect(h.state()).toEqual(other.state());
    expect(() => h.domain.restore({ nope: true })).toThrow(/snapshot/);
  });

  it('reset returns to the seed', () => {
    const h = createHarness();
    const seeded = JSON.stringify(h.state());
    h.action('buyer_send_order', { count: 2 });
    h.domain.reset();
    expect(JSON.stringify(h.state())).toBe(seeded);
  });
});

describe('fault actions for sync tests', () => {
  it('touch_orders_same_timestamp gives N orders one shared updated_at, later than before', async () => {
    const h = createHarness();
    const result = h.action<{ updated_at: string; order_ids: string[] }>('touch_orders_same_timestamp', {
      count: 4,
    });
    const orders = Object.values(h.state()['orders'] as Record<string, Order>).filter((order) =>
      result.order_ids.includes(order.id),
    );
    expect(orders).toHaveLength(4);
    expect(new Set(orders.map((order) => order.updated_at))).toEqual(new Set([result.updated_at]));
    const page = (
      await h.call('GET', '/supplier/orders', {
        query: { updated_since: new Date(Date.parse(result.updated_at) - 1).toISOString() },
      })
    ).body as { data: Order[] };
    expect(page.data.map((order) => order.id).sort()).toEqual([...result.order_ids].sort());
  });

  it('insert_late_order writes an order older than the newest one', () => {
    const h = createHarness();
    const result = h.action<{ order_id: string; updated_at: string; newest_before: string }>(
      'insert_late_order',
      { lag_ms: 5000 },
    );
    expect(Date.parse(result.newest_before) - Date.parse(result.updated_at)).toBe(5000);
    const created = h.events.find(
      (event) => event.type === 'order.created' && event.data.id === result.order_id,
    );
    expect(created?.data['updated_at']).toBe(result.updated_at);
    expect(created?.data['status']).toBe('pending_approval');
  });

  it('corrupt_next_list_item breaks exactly one item of the next list response', async () => {
    const h = createHarness();
    h.action('corrupt_next_list_item');
    const first = (await h.call('GET', '/supplier/orders', { query: { limit: '5' } })).body as {
      data: unknown[];
    };
    expect(first.data.map((item) => strict.Order.safeParse(item).success)).toEqual([
      false,
      true,
      true,
      true,
      true,
    ]);
    const second = (await h.call('GET', '/supplier/orders', { query: { limit: '5' } })).body as {
      data: unknown[];
    };
    expect(second.data.every((item) => strict.Order.safeParse(item).success)).toBe(true);
  });

  it('add_unknown_enum serves an order with an unknown status and field that the lenient schema tolerates', async () => {
    const h = createHarness();
    const { order_id: id } = h.action<{ order_id: string }>('add_unknown_enum');
    const body = (await h.call('GET', `/supplier/orders/${id}`)).body as Record<string, unknown>;
    expect([body['status'], body['priority_level']]).toEqual(['on_hold_by_buyer', 'urgent']);
    expect(strict.Order.safeParse(body).success).toBe(false);
    const { priority_level: _unknown, ...known } = body;
    expect(strict.Order.safeParse({ ...known, status: 'approved' }).success).toBe(true);
    const lenient = parseLenientAs('Order', body);
    expect(lenient.ok && lenient.drift.map((item) => item.kind).sort()).toEqual([
      'unknown_enum_value',
      'unknown_field',
    ]);
  });
});
