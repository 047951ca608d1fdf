/** Orders as the buyer places them, their views for each side, and buyer-side moves (send, cancel). */
import type { DomainEnv } from './env.js';
import { clone, newId, nowIso, stampAfter, raiseToBuyer, raiseToSupplier } from './env.js';
import { conflict, notFound } from './errors.js';
import {
  branchRef,
  demoBuyer,
  pricesFor,
  productCategoryId,
  purchaseLineAccount,
  supplierParty,
} from './lookup.js';
import { computeLineTotal, computeTotals } from './order-math.js';
import type { HistoryEntry, Order, OrderLine } from './types.js';

/** States the buyer keeps to itself; suppliers never see them. */
const BUYER_ONLY_STATUSES = new Set(['draft', 'waiting_to_send']);

export interface NewOrderInput {
  branchId: string;
  purchaseType: string | null;
  lines: readonly { sku: string; quantity: string; discount_pct?: string | null }[];
  deliveryDate: string;
  notes?: string | null;
  status?: 'pending_approval' | 'waiting_to_send' | 'draft';
}

export const systemActor = { type: 'system', id: 'sandbox', name: 'Sandbox' } as const;
export const buyerActor = {
  type: 'user',
  id: 'usr_demo_buyer',
  name: 'Demo buyer purchasing manager',
} as const;

export function historyEntry(
  at: string,
  action: string,
  actor: HistoryEntry['actor'],
  changes: HistoryEntry['changes'] = {},
): HistoryEntry {
  return { at, action, actor: { ...actor }, changes };
}

export function getOrder(env: DomainEnv, orderId: string): Order {
  const order = env.state.orders[orderId];
  if (!order) throw notFound('Order', orderId);
  return order;
}

/** The supplier's order, hiding buyer-only states (404 as for any order it cannot see). */
export function getSupplierOrder(env: DomainEnv, orderId: string): Order {
  const order = getOrder(env, orderId);
  if (BUYER_ONLY_STATUSES.has(order.status)) throw notFound('Order', orderId);
  return order;
}

export const visibleToSupplier = (order: Order): boolean => !BUYER_ONLY_STATUSES.has(order.status);

function buildLines(env: DomainEnv, input: NewOrderInput): OrderLine[] {
  const prices = pricesFor(env);
  return input.lines.map((requested) => {
    const product = env.state.products[requested.sku];
    if (!product || product.deleted_at !== null) throw notFound('Product', requested.sku);
    const unitPrice = prices.get(requested.sku) ?? '1.00';
    const priced = {
      quantity: requested.quantity,
      unit_price: unitPrice,
      discount_pct: requested.discount_pct ?? null,
      vat_exempt: product.vat_exempt,
    };
    const line: OrderLine = {
      id: newId(env, 'oln'),
      sku: product.sku,
      name: product.name,
      quantity: requested.quantity,
      unit_price: unitPrice,
      total: computeLineTotal(priced),
      unit: product.unit,
      discount_pct: priced.discount_pct,
      vat_exempt: product.vat_exempt,
      quantity_confirmed: null,
      substitute_sku: null,
      notes: null,
      product_group: product.category ?? null,
      expense_account:
        productCategoryId(product) === null
          ? null
          : purchaseLineAccount(env, product.sku, input.purchaseType),
    };
    if (product.package_quantity !== undefined) line.package_quantity = product.package_quantity;
    return line;
  });
}

/** Creates an order as the demo buyer; a pending_approval order is "sent" and reaches the supplier. */
export function placeOrder(env: DomainEnv, input: NewOrderInput): Order {
  const buyer = demoBuyer(env);
  const branch = branchRef(env, input.branchId);
  if (!branch) throw notFound('Branch', input.branchId);
  const now = nowIso(env);
  const lines = buildLines(env, input);
  const id = newId(env, 'ord');
  const order: Order = {
    id,
    number: `PO-${now.slice(0, 4)}-${String(env.state.nextId).padStart(6, '0')}`,
    status: input.status ?? 'pending_approval',
    buyer: { id: buyer.id, name: buyer.name, customer_number: buyer.customer_number },
    supplier: supplierParty(),
    branch,
    purchase_type: input.purchaseType,
    delivery_date: input.deliveryDate,
    delivery_window: { from: '06:00', to: '10:00' },
    currency: 'ILS',
    totals: computeTotals(lines),
    lines,
    notes: input.notes ?? null,
    external_ref: null,
    acknowledged_at: null,
    related_document_ids: [],
    files: [],
    history: [historyEntry(now, 'created', buyerActor)],
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  env.state.orders[id] = order;
  env.state.orderTallies[id] = { acknowledgements: 0, confirmations: 0, rejections: 0, confirmBody: null };
  if (order.status === 'pending_approval') markSent(env, order, now);
  return order;
}

function markSent(env: DomainEnv, order: Order, now: string): void {
  order.sent_at = now;
  order.updated_at = now;
  order.history.push(historyEntry(now, 'sent', buyerActor));
  raiseToSupplier(env, 'order.created', orderEventData(order, 'supplier'));
}

/** A scheduled (waiting_to_send) or draft order is sent now. */
export function sendOrder(env: DomainEnv, orderId: string): Order {
  const order = getOrder(env, orderId);
  if (!BUYER_ONLY_STATUSES.has(order.status))
    throw conflict(`Order ${orderId} was already sent (status ${order.status}).`);
  const now = stampAfter(env, order.updated_at);
  setStatus(order, 'pending_approval', now, buyerActor, 'sent');
  markSent(env, order, now);
  return order;
}

/** G5: the buyer cancels. pending_approval -> cancelled; approved/partially_approved -> cancelled_after_approval. */
export function cancelOrder(env: DomainEnv, orderId: string): Order {
  const order = getOrder(env, orderId);
  const now = stampAfter(env, order.updated_at);
  if (order.status === 'pending_approval' || BUYER_ONLY_STATUSES.has(order.status)) {
    const wasSent = order.status === 'pending_approval';
    setStatus(order, 'cancelled', now, buyerActor, 'cancelled');
    if (wasSent) raiseToSupplier(env, 'order.cancelled', orderEventData(order, 'supplier'));
    return order;
  }
  if (order.status === 'approved' || order.status === 'partially_approved') {
    setStatus(order, 'cancelled_after_approval', now, buyerActor, 'cancelled');
    raiseToSupplier(env, 'order.updated', orderEventData(order, 'supplier'));
    return order;
  }
  throw conflict(`Order ${orderId} cannot be cancelled from status ${order.status}.`);
}

export function setStatus(
  order: Order,
  status: string,
  now: string,
  actor: HistoryEntry['actor'],
  action: string,
): void {
  order.history.push(historyEntry(now, action, actor, { status: { from: order.status, to: status } }));
  order.status = status;
  order.updated_at = now;
}

export interface ViewOptions {
  lines: boolean;
  history: boolean;
}
const DEFAULT_VIEW: ViewOptions = { lines: true, history: false };

/** expand=-lines drops lines, expand=history adds history. */
export function viewOptions(expand: string | null): ViewOptions {
  const parts = new Set((expand ?? '').split(',').map((part) => part.trim()));
  return { lines: !parts.has('-lines'), history: parts.has('history') };
}

/** The order as one side sees it: suppliers never get product_group / expense_account. */
export function orderView(
  order: Order,
  side: 'supplier' | 'buyer',
  options: ViewOptions = DEFAULT_VIEW,
): Record<string, unknown> {
  // Shallow first, then one deep copy of only what is sent (history is often the largest part).
  const view: Record<string, unknown> = { ...order };
  if (!options.history) delete view['history'];
  if (!options.lines) delete view['lines'];
  else if (side === 'supplier') {
    view['lines'] = order.lines.map((line) => {
      const { product_group: _group, expense_account: _account, ...rest } = line;
      return rest;
    });
  }
  return clone(view);
}

export function orderEventData(
  order: Order,
  side: 'supplier' | 'buyer',
): { object: string; id: string } & Record<string, unknown> {
  return { ...orderView(order, side), object: 'order', id: order.id };
}

export function notifyStatusChange(env: DomainEnv, order: Order): void {
  raiseToSupplier(env, 'order.updated', orderEventData(order, 'supplier'));
  raiseToBuyer(env, 'order.status_changed', orderEventData(order, 'buyer'));
}
