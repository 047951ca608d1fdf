/** The supplier's moves on an order: confirm (G1), acknowledge (G2), reject (G3). */
import type { DomainEnv } from './env.js';
import { stampAfter } from './env.js';
import { conflict, invalid, type ValidationItem } from './errors.js';
import { cents, milli } from './money.js';
import { computeLineTotal, computeTotals } from './order-math.js';
import { getSupplierOrder, historyEntry, notifyStatusChange, setStatus } from './orders.js';
import type { HistoryEntry, Order } from './types.js';

export interface ConfirmLineInput {
  line_id: string;
  quantity_confirmed?: string | undefined;
  substitute_sku?: string | null | undefined;
  unit_price?: string | undefined;
  notes?: string | null | undefined;
}
export interface ConfirmInput {
  lines?: readonly ConfirmLineInput[] | undefined;
  notes?: string | null | undefined;
}
export type SupplierActor = HistoryEntry['actor'];

const CONFIRMED = new Set(['approved', 'partially_approved']);

function tally(env: DomainEnv, orderId: string) {
  const existing = env.state.orderTallies[orderId];
  if (existing) return existing;
  const created = { acknowledgements: 0, confirmations: 0, rejections: 0, confirmBody: null };
  env.state.orderTallies[orderId] = created;
  return created;
}

/** Canonical form of a confirm body: an empty body and `{}` and `{lines: []}` are the same full confirmation. */
function canonicalConfirm(input: ConfirmInput): string {
  const lines = [...(input.lines ?? [])].sort((a, b) => a.line_id.localeCompare(b.line_id));
  return JSON.stringify({ lines, notes: input.notes ?? null });
}

function checkLines(order: Order, input: ConfirmInput): void {
  const errors: ValidationItem[] = [];
  const known = new Set(order.lines.map((line) => line.id));
  (input.lines ?? []).forEach((line, index) => {
    if (!known.has(line.line_id))
      errors.push({
        field: `lines[${index}].line_id`,
        code: 'not_found',
        message: `Order line ${line.line_id} is not part of order ${order.id}.`,
      });
    const ordered = order.lines.find((candidate) => candidate.id === line.line_id);
    if (
      ordered &&
      line.quantity_confirmed !== undefined &&
      milli(line.quantity_confirmed) > milli(ordered.quantity)
    ) {
      errors.push({
        field: `lines[${index}].quantity_confirmed`,
        code: 'out_of_range',
        message: 'The confirmed quantity cannot exceed the ordered quantity.',
      });
    }
    if (line.unit_price !== undefined && cents(line.unit_price) <= 0n) {
      errors.push({
        field: `lines[${index}].unit_price`,
        code: 'must_be_positive',
        message: 'The unit price must be greater than 0.00.',
      });
    }
  });
  if (errors.length > 0) throw invalid(errors);
}

export function confirmOrder(
  env: DomainEnv,
  orderId: string,
  input: ConfirmInput,
  actor: SupplierActor,
): Order {
  const order = getSupplierOrder(env, orderId);
  const counts = tally(env, orderId);
  const canonical = canonicalConfirm(input);
  if (CONFIRMED.has(order.status) && counts.confirmBody === canonical) return order;
  if (order.status !== 'pending_approval')
    throw conflict(`Order ${orderId} cannot be confirmed from status ${order.status}.`);
  checkLines(order, input);
  const byId = new Map((input.lines ?? []).map((line) => [line.line_id, line]));
  let partial = false;
  for (const line of order.lines) {
    const requested = byId.get(line.id);
    line.quantity_confirmed = requested?.quantity_confirmed ?? line.quantity;
    if (milli(line.quantity_confirmed) < milli(line.quantity)) partial = true;
    if (requested?.substitute_sku !== undefined) line.substitute_sku = requested.substitute_sku;
    if (requested?.notes !== undefined) line.notes = requested.notes;
    if (requested?.unit_price !== undefined && requested.unit_price !== line.unit_price) {
      line.unit_price = requested.unit_price;
      line.total = computeLineTotal(line);
    }
  }
  order.totals = computeTotals(order.lines);
  if (input.notes !== undefined && input.notes !== null) order.notes = input.notes;
  setStatus(
    order,
    partial ? 'partially_approved' : 'approved',
    stampAfter(env, order.updated_at),
    actor,
    'confirmed',
  );
  counts.confirmations += 1;
  counts.confirmBody = canonical;
  notifyStatusChange(env, order);
  return order;
}

export interface AcknowledgeInput {
  external_ref: string;
  acknowledged_at?: string | undefined;
}

export function acknowledgeOrder(
  env: DomainEnv,
  orderId: string,
  input: AcknowledgeInput,
  actor: SupplierActor,
): Order {
  const order = getSupplierOrder(env, orderId);
  if (order.external_ref === input.external_ref) return order;
  if (order.external_ref !== null) {
    throw conflict(`Order ${orderId} is already acknowledged with another external_ref.`, [
      {
        field: 'external_ref',
        code: 'conflict',
        message: 'A different external_ref is already recorded for this order.',
      },
    ]);
  }
  const now = stampAfter(env, order.updated_at);
  const acknowledgedAt = input.acknowledged_at ?? now;
  order.history.push(
    historyEntry(now, 'acknowledged', actor, { external_ref: { from: null, to: input.external_ref } }),
  );
  order.external_ref = input.external_ref;
  order.acknowledged_at = acknowledgedAt;
  order.updated_at = now;
  tally(env, orderId).acknowledgements += 1;
  return order;
}

export function rejectOrder(env: DomainEnv, orderId: string, reason: string, actor: SupplierActor): Order {
  const order = getSupplierOrder(env, orderId);
  if (order.status === 'rejected') return order;
  if (order.status !== 'pending_approval')
    throw conflict(`Order ${orderId} cannot be rejected from status ${order.status}.`);
  const now = stampAfter(env, order.updated_at);
  setStatus(order, 'rejected', now, actor, 'rejected');
  order.notes = order.notes ? `${order.notes}\nRejected: ${reason}` : `Rejected: ${reason}`;
  tally(env, orderId).rejections += 1;
  notifyStatusChange(env, order);
  return order;
}
