/** The buyer's moves on a purchase document (G9), driven from the control plane. */
import { documentEventData, getDocument } from './documents.js';
import type { DomainEnv } from './env.js';
import { stampAfter, raiseToBuyer, raiseToSupplier } from './env.js';
import { conflict } from './errors.js';
import { announceApproved, buildJournalLines, groupDebits } from './journal.js';
import { cents, milli, quantity } from './money.js';
import { buyerActor, historyEntry } from './orders.js';
import { DEMO_SUPPLIER_ID } from '../../demo-data/index.js';
import type { Difference, JournalLine, PurchaseDocument } from './types.js';

const RECEIVED = new Set(['received', 'received_with_differences']);

function move(doc: PurchaseDocument, status: string, now: string): void {
  doc.history.push(
    historyEntry(now, status, buyerActor, { buyer_status: { from: doc.buyer_status, to: status } }),
  );
  doc.buyer_status = status;
  doc.updated_at = now;
}

/** Per line quantity received; absent lines are received in full. `withDifferences` short-cuts to "first line short by one". */
export interface ReceiveInput {
  received?: Record<string, string>;
  withDifferences?: boolean;
}

export function receiveDocument(
  env: DomainEnv,
  documentId: string,
  input: ReceiveInput = {},
): PurchaseDocument {
  const doc = getDocument(env, documentId);
  if (doc.buyer_status !== 'pending')
    throw conflict(`Document ${documentId} was already received (status ${doc.buyer_status}).`);
  const received: Record<string, string> = { ...(input.received ?? {}) };
  const first = doc.lines[0];
  if (input.withDifferences === true && first && received[first.id] === undefined) {
    const issued = milli(first.quantity);
    received[first.id] = quantity(issued > 1000n ? issued - 1000n : issued / 2n);
  }
  const differences: Difference[] = [];
  for (const line of doc.lines) {
    line.quantity_received = received[line.id] ?? line.quantity;
    if (milli(line.quantity_received) !== milli(line.quantity)) {
      differences.push({
        line_id: line.id,
        sku: line.sku,
        field: 'quantity',
        issued: line.quantity,
        received: line.quantity_received,
        note: 'Quantity received differs from the document.',
      });
    }
  }
  doc.differences = differences;
  const now = stampAfter(env, doc.updated_at);
  move(doc, differences.length > 0 ? 'received_with_differences' : 'received', now);
  raiseToSupplier(env, 'document.received', () => documentEventData(doc));
  raiseToBuyer(env, 'document.updated', () => documentEventData(doc));
  return doc;
}

export function disputeDocument(env: DomainEnv, documentId: string): PurchaseDocument {
  const doc = getDocument(env, documentId);
  if (doc.buyer_status === 'disputed') return doc;
  if (!RECEIVED.has(doc.buyer_status))
    throw conflict(`Document ${documentId} cannot be disputed from status ${doc.buyer_status}.`);
  move(doc, 'disputed', stampAfter(env, doc.updated_at));
  raiseToSupplier(env, 'document.disputed', () => documentEventData(doc));
  raiseToBuyer(env, 'document.updated', () => documentEventData(doc));
  return doc;
}

/** Generates the document's journal lines in approved_for_export, without events (used for bulk seeding too). */
export function journalForDocument(env: DomainEnv, doc: PurchaseDocument): JournalLine[] {
  const debits = groupDebits(
    doc.lines.map((line) => ({
      account: line.expense_account ?? '5100',
      categoryId: null,
      amount: cents(line.total),
    })),
  );
  return buildJournalLines(
    env,
    {
      documentId: doc.id,
      documentType: doc.type,
      documentNumber: doc.number,
      source: doc.source,
      vendorId: DEMO_SUPPLIER_ID,
      branchId: doc.branch?.id ?? 'br_tlv',
      purchaseType: doc.purchase_type,
      allocationNumber: doc.allocation_number,
      docDate: doc.date,
      accountingPeriod: doc.accounting_period,
      debits,
      vat: cents(doc.totals.vat),
      credit: cents(doc.totals.with_vat),
    },
    'approved_for_export',
  );
}

/** received* -> approved_for_export: journal lines appear, ready to pull. Delivery notes carry no journal lines. */
export function approveDocument(
  env: DomainEnv,
  documentId: string,
  announce = true,
): { document: PurchaseDocument; lines: JournalLine[] } {
  const doc = getDocument(env, documentId);
  if (doc.buyer_status === 'approved_for_export') return { document: doc, lines: [] };
  if (!RECEIVED.has(doc.buyer_status))
    throw conflict(`Document ${documentId} cannot be approved from status ${doc.buyer_status}.`);
  const now = stampAfter(env, doc.updated_at);
  move(doc, 'approved_for_export', now);
  doc.export_status = 'approved_for_export';
  const lines = doc.type === 'delivery_note' ? [] : journalForDocument(env, doc);
  if (announce) {
    raiseToSupplier(env, 'document.approved_for_export', () => documentEventData(doc));
    raiseToBuyer(env, 'document.updated', () => documentEventData(doc));
    announceApproved(
      env,
      lines.map((line) => line.id),
    );
  }
  return { document: doc, lines };
}

/** unpaid -> partially_paid -> paid. */
export function payDocument(env: DomainEnv, documentId: string, full: boolean): PurchaseDocument {
  const doc = getDocument(env, documentId);
  const next = full || doc.payment_status === 'partially_paid' ? 'paid' : 'partially_paid';
  if (doc.payment_status === 'paid') return doc;
  const now = stampAfter(env, doc.updated_at);
  doc.history.push(
    historyEntry(now, 'payment', buyerActor, { payment_status: { from: doc.payment_status, to: next } }),
  );
  doc.payment_status = next;
  if (next === 'paid') doc.paid_at = now;
  doc.updated_at = now;
  raiseToBuyer(env, 'document.updated', () => documentEventData(doc));
  return doc;
}
