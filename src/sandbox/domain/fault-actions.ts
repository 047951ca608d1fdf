/** Control-plane actions that create the awkward cases a sync must survive: ties, late commits, bad items, drift. */
import { actionRandom, asBody, count, type Action } from './action-input.js';
import type { DomainEnv } from './env.js';
import { raiseToSupplier } from './env.js';
import { invalidField } from './errors.js';
import { historyEntry, orderEventData, placeOrder, systemActor, visibleToSupplier } from './orders.js';
import { randomOrderLines } from './seed/activity.js';
import type { Order } from './types.js';

const maxMs = (orders: readonly Order[]): number =>
  orders.reduce((max, order) => Math.max(max, Date.parse(order.updated_at)), Number.NEGATIVE_INFINITY);

/** N supplier-visible orders change together and share one updated_at (later than each one's previous value). */
function touchSameTimestamp(env: DomainEnv, n: number): unknown {
  const candidates = Object.values(env.state.orders)
    .filter(visibleToSupplier)
    .sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || a.id.localeCompare(b.id));
  const random = actionRandom(env);
  const chosen = candidates.length <= n ? candidates : candidates.slice(-n);
  while (chosen.length < n) {
    const order = placeOrder(env, {
      branchId: 'br_tlv',
      purchaseType: 'FC',
      lines: randomOrderLines(env, random, 2),
      deliveryDate: new Date(env.services.clock.now() + 86_400_000).toISOString().slice(0, 10),
    });
    chosen.push(order);
  }
  const at = new Date(Math.max(env.services.clock.now(), maxMs(chosen) + 1)).toISOString();
  for (const order of chosen) {
    order.history.push(
      historyEntry(at, 'updated', systemActor, {
        delivery_window: { from: order.delivery_window ?? null, to: { from: '07:00', to: '11:00' } },
      }),
    );
    order.delivery_window = { from: '07:00', to: '11:00' };
    order.updated_at = at;
    raiseToSupplier(env, 'order.updated', orderEventData(order, 'supplier'));
  }
  return { updated_at: at, order_ids: chosen.map((order) => order.id) };
}

/** A sent order whose timestamps lie `lag_ms` before the newest order's updated_at: a commit that landed late. */
function insertLateOrder(env: DomainEnv, lagMs: number): unknown {
  const newest = maxMs(Object.values(env.state.orders).filter(visibleToSupplier));
  const order = placeOrder(env, {
    branchId: 'br_jlm',
    purchaseType: 'FC',
    lines: randomOrderLines(env, actionRandom(env), 3),
    deliveryDate: new Date(env.services.clock.now() + 86_400_000).toISOString().slice(0, 10),
    status: 'draft',
  });
  const base = Number.isFinite(newest) ? newest : env.services.clock.now();
  const at = new Date(base - lagMs).toISOString();
  order.status = 'pending_approval';
  order.history.push(
    historyEntry(at, 'sent', systemActor, { status: { from: 'draft', to: 'pending_approval' } }),
  );
  order.created_at = at;
  order.sent_at = at;
  order.updated_at = at;
  for (const entry of order.history) entry.at = at;
  raiseToSupplier(env, 'order.created', orderEventData(order, 'supplier'));
  return { order_id: order.id, updated_at: at, newest_before: new Date(base).toISOString() };
}

/** An order with a status value and a field the contract does not know (yet): clients must tolerate both. */
function addUnknownEnum(env: DomainEnv, status: string): unknown {
  const order = placeOrder(env, {
    branchId: 'br_hrz',
    purchaseType: 'MK',
    lines: randomOrderLines(env, actionRandom(env), 2),
    deliveryDate: new Date(env.services.clock.now() + 86_400_000).toISOString().slice(0, 10),
  });
  order.status = status;
  Object.assign(order, { priority_level: 'urgent' });
  env.state.driftOrderIds.push(order.id);
  raiseToSupplier(env, 'order.updated', orderEventData(order, 'supplier'));
  return { order_id: order.id, status, unknown_field: 'priority_level' };
}

export function lateAndDriftActions(env: DomainEnv): Record<string, Action> {
  return {
    touch_orders_same_timestamp: (body) => touchSameTimestamp(env, count(asBody(body), 'count', 5, 1000)),
    insert_late_order: (body) => insertLateOrder(env, count(asBody(body), 'lag_ms', 2000, 86_400_000)),
    corrupt_next_list_item: (body) => {
      env.state.pendingCorruptions += count(asBody(body), 'count', 1, 100);
      return { pending_corruptions: env.state.pendingCorruptions };
    },
    add_unknown_enum: (body) => {
      const status = asBody(body)['status'] ?? 'on_hold_by_buyer';
      if (typeof status !== 'string' || !/^[a-z_]+$/.test(status))
        throw invalidField('status', 'invalid_format', 'status must be lowercase snake_case.');
      return addUnknownEnum(env, status);
    },
  };
}
