/** Control-plane actions: the demo buyer's side of the story, and faults for the daemon's tests. */
import { acceptInvitation } from './buyers.js';
import { approveJournalLinesInBulk } from './bulk-approvals.js';
import { approveDocument, disputeDocument, payDocument, receiveDocument } from './document-review.js';
import type { DomainEnv } from './env.js';
import { clone, raiseToBuyer, stampAfter } from './env.js';
import { approveExpense, createExpense } from './expenses.js';
import { invalidField } from './errors.js';
import { completeInventoryCount, startInventoryCount } from './inventory.js';
import { cancelOrder, orderEventData, placeOrder, sendOrder } from './orders.js';
import { randomOrderLines } from './seed/activity.js';
import { expenseInput, pickPlan } from './seed/buyer-books.js';
import { actionRandom, asBody, count, requiredText, text, type Action, type Body } from './action-input.js';
import { DEMO_BUYER_ACCOUNT_ID } from '../http/types.js';
import { lateAndDriftActions } from './fault-actions.js';

function sendOrders(env: DomainEnv, body: Body): unknown {
  const random = actionRandom(env);
  const n = count(body, 'count', 1, 1000);
  const given = body['lines'];
  const lines = Array.isArray(given)
    ? given.map((line, index) => ({
        sku: requiredText(asBody(line), 'sku'),
        quantity: text(asBody(line), 'quantity') ?? String(index + 1),
      }))
    : undefined;
  const status = body['status'] === 'waiting_to_send' ? 'waiting_to_send' : 'pending_approval';
  const orders = Array.from({ length: n }, () =>
    placeOrder(env, {
      branchId: text(body, 'branch_id') ?? random.pick(Object.keys(env.state.branches)),
      purchaseType: text(body, 'purchase_type') ?? 'FC',
      lines: lines ?? randomOrderLines(env, random, random.int(2, 6)),
      deliveryDate:
        text(body, 'delivery_date') ??
        new Date(env.services.clock.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      notes: text(body, 'notes') ?? null,
      status,
    }),
  );
  return {
    order_ids: orders.map((order) => order.id),
    orders: orders.map((order) => orderEventData(order, 'buyer')),
  };
}

function touchVendor(env: DomainEnv, body: Body): unknown {
  const id = text(body, 'supplier_id') ?? 'sup_demo';
  const vendor = env.state.vendors[id];
  if (!vendor) throw invalidField('supplier_id', 'not_found', `Supplier ${id} was not found.`);
  const terms = text(body, 'payment_terms');
  vendor.payment_terms = terms ?? (vendor.payment_terms === 'net_60' ? 'net_45' : 'net_60');
  vendor.updated_at = stampAfter(env, vendor.updated_at);
  raiseToBuyer(env, 'supplier.updated', { ...clone(vendor), object: 'supplier', id: vendor.id });
  return clone(vendor);
}

function receiveDocumentAction(env: DomainEnv, body: Body): unknown {
  const received = asBody(body['received']);
  const quantities: Record<string, string> = {};
  for (const [lineId, quantity] of Object.entries(received))
    if (typeof quantity === 'string') quantities[lineId] = quantity;
  return clone(
    receiveDocument(env, requiredText(body, 'document_id'), {
      received: quantities,
      withDifferences: body['with_differences'] === true,
    }),
  );
}

/** A random expense of the demo buyer, created as if by hand (no attachment needed). */
function createExpenseAction(env: DomainEnv, body: Body): unknown {
  const random = actionRandom(env);
  const input = expenseInput(
    random,
    pickPlan(random),
    text(body, 'branch_id') ?? 'br_tlv',
    text(body, 'doc_date') ?? new Date(env.services.clock.now()).toISOString().slice(0, 10),
    `EX-${env.state.nextId}`,
  );
  return clone(
    createExpense(env, input, {
      accountId: DEMO_BUYER_ACCOUNT_ID,
      source: 'manual',
      enforceAttachments: false,
    }),
  );
}

/** Completes the given count, or starts and completes one of eight random products. */
function completeCountAction(env: DomainEnv, body: Body): unknown {
  const countId = text(body, 'count_id');
  if (countId !== undefined) return clone(completeInventoryCount(env, countId));
  const random = actionRandom(env);
  const counted = randomOrderLines(env, random, 8).map((line) => ({
    sku: line.sku,
    quantity: line.quantity,
  }));
  const started = startInventoryCount(env, text(body, 'branch_id') ?? 'br_tlv', counted);
  return clone(completeInventoryCount(env, started.id));
}

export function createActions(env: DomainEnv): Record<string, Action> {
  return {
    buyer_send_order: (body) => sendOrders(env, asBody(body)),
    buyer_send_scheduled_order: (body) =>
      orderEventData(sendOrder(env, requiredText(asBody(body), 'order_id')), 'buyer'),
    buyer_cancel_order: (body) =>
      orderEventData(cancelOrder(env, requiredText(asBody(body), 'order_id')), 'buyer'),
    buyer_receive_document: (body) => receiveDocumentAction(env, asBody(body)),
    buyer_dispute_document: (body) => clone(disputeDocument(env, requiredText(asBody(body), 'document_id'))),
    buyer_approve_document: (body) => {
      const { document, lines } = approveDocument(env, requiredText(asBody(body), 'document_id'));
      return { document: clone(document), journal_line_ids: lines.map((line) => line.id) };
    },
    buyer_pay_document: (body) =>
      clone(payDocument(env, requiredText(asBody(body), 'document_id'), asBody(body)['full'] !== false)),
    approve_journal_lines: (body) =>
      approveJournalLinesInBulk(env, count(asBody(body), 'count', 30, 100_000)),
    create_expense: (body) => createExpenseAction(env, asBody(body)),
    approve_expense: (body) => {
      const { expense, lines } = approveExpense(env, requiredText(asBody(body), 'expense_id'));
      return { expense: clone(expense), journal_line_ids: lines.map((line) => line.id) };
    },
    complete_inventory_count: (body) => completeCountAction(env, asBody(body)),
    accept_invitation: (body) => clone(acceptInvitation(env, text(asBody(body), 'invitation_id'))),
    update_supplier: (body) => touchVendor(env, asBody(body)),
    ...lateAndDriftActions(env),
  };
}
