/** Purchase documents the supplier issues (G7) and what the buyer does with them (G9). */
import type { DomainEnv } from './env.js';
import { clone, newId, nowIso, raiseToBuyer, stampAfter } from './env.js';
import { conflict, invalid, notFound, type ValidationItem } from './errors.js';
import { branchRef, purchaseLineAccount, supplierBuyer, supplierParty } from './lookup.js';
import { documentRuleViolations, formatPath } from '../../contract/index.js';
import { historyEntry, systemActor } from './orders.js';
import type { DocumentLine, FileRef, PurchaseDocument, Totals } from './types.js';

export interface DocumentLineInput {
  sku: string;
  name: string;
  quantity: string;
  unit?: string | undefined;
  unit_price: string;
  discount_pct?: string | null | undefined;
  vat_exempt?: boolean | undefined;
  total: string;
  order_id?: string | null | undefined;
  order_line_id?: string | null | undefined;
}
export interface DocumentInput {
  type: string;
  number: string;
  date: string;
  due_date?: string | null | undefined;
  accounting_period?: string | undefined;
  buyer_id: string;
  branch_id?: string | undefined;
  purchase_type?: string | null | undefined;
  order_ids?: readonly string[] | undefined;
  currency: string;
  totals: { before_vat: string; vat: string; with_vat: string; discount?: string | undefined };
  allocation_number?: string | null | undefined;
  lines: readonly DocumentLineInput[];
  file_ids?: readonly string[] | undefined;
  external_ref?: string | null | undefined;
  notes?: string | null | undefined;
}

function checkRules(env: DomainEnv, accountId: string, input: DocumentInput): void {
  const errors: ValidationItem[] = [];
  for (const violation of documentRuleViolations(input)) {
    errors.push({ field: formatPath(violation.path), code: violation.code, message: violation.message });
  }
  if (!env.state.supplierBuyers[input.buyer_id]) {
    errors.push({
      field: 'buyer_id',
      code: 'not_found',
      message: `Buyer ${input.buyer_id} is not linked to this supplier.`,
    });
  }
  if (input.branch_id !== undefined && !env.state.branches[input.branch_id]) {
    errors.push({
      field: 'branch_id',
      code: 'not_found',
      message: `Branch ${input.branch_id} was not found.`,
    });
  }
  (input.file_ids ?? []).forEach((fileId, index) => {
    if (!env.services.files.exists(accountId, fileId))
      errors.push({
        field: `file_ids[${index}]`,
        code: 'not_found',
        message: `File ${fileId} was not found.`,
      });
  });
  (input.order_ids ?? []).forEach((orderId, index) => {
    if (!env.state.orders[orderId])
      errors.push({
        field: `order_ids[${index}]`,
        code: 'not_found',
        message: `Order ${orderId} was not found.`,
      });
  });
  if (errors.length > 0) throw invalid(errors);
}

const documentKey = (type: string, number: string, buyerId: string): string =>
  JSON.stringify([buyerId, type, number]);

export function findDocumentByNumber(
  env: DomainEnv,
  type: string,
  number: string,
  buyerId: string,
): PurchaseDocument | undefined {
  const id = env.state.documentKeys[documentKey(type, number, buyerId)];
  return id === undefined ? undefined : env.state.documents[id];
}

/** Creates a document (the platform already handled the Idempotency-Key replay). */
export function createDocument(
  env: DomainEnv,
  accountId: string,
  input: DocumentInput,
  source = 'purchase',
): PurchaseDocument {
  checkRules(env, accountId, input);
  refuseDuplicate(env, input);
  const doc = newDocument(env, input, source);
  storeDocument(env, doc);
  raiseToBuyer(env, 'document.created', () => documentEventData(doc));
  return doc;
}

/** 409 for a second document of one type and number for the buyer; the attempt is counted on the first. */
function refuseDuplicate(env: DomainEnv, input: DocumentInput): void {
  const existing = findDocumentByNumber(env, input.type, input.number, input.buyer_id);
  if (!existing) return;
  const tally = env.state.documentTallies[existing.id];
  if (tally) tally.duplicateAttempts += 1;
  throw conflict(`A ${input.type} numbered ${input.number} already exists for this buyer (${existing.id}).`, [
    {
      field: 'number',
      code: 'duplicate',
      message: `Document ${existing.id} already has this type and number.`,
    },
  ]);
}

/** The new document, its files marked referenced; not yet stored. */
function newDocument(env: DomainEnv, input: DocumentInput, source: string): PurchaseDocument {
  const buyer = supplierBuyer(env, input.buyer_id);
  const now = nowIso(env);
  const purchaseType = input.purchase_type ?? null;
  const files: FileRef[] = (input.file_ids ?? []).map((fileId) => {
    env.services.files.markReferenced(fileId);
    return { id: fileId, name: fileId };
  });
  const doc: PurchaseDocument = {
    id: newId(env, 'doc'),
    type: input.type,
    number: input.number,
    date: input.date,
    accounting_period: input.accounting_period ?? input.date.slice(0, 7),
    due_date: input.due_date ?? null,
    supplier: supplierParty(),
    buyer: { id: buyer.id, name: buyer.name },
    purchase_type: purchaseType,
    source,
    order_ids: [...(input.order_ids ?? [])],
    currency: input.currency,
    totals: totalsOf(input.totals),
    allocation_number: input.allocation_number ?? null,
    lines: input.lines.map((line) => documentLine(env, line, purchaseType)),
    buyer_status: 'pending',
    differences: [],
    payment_status: 'unpaid',
    paid_at: null,
    export_status: 'not_ready',
    exported_at: null,
    files,
    external_ref: input.external_ref ?? null,
    history: [historyEntry(now, 'created', systemActor)],
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  const branch = input.branch_id === undefined ? undefined : branchRef(env, input.branch_id);
  if (branch) doc.branch = branch;
  return doc;
}

function documentLine(env: DomainEnv, line: DocumentLineInput, purchaseType: string | null): DocumentLine {
  return {
    id: newId(env, 'dln'),
    sku: line.sku,
    name: line.name,
    quantity: line.quantity,
    unit_price: line.unit_price,
    total: line.total,
    ...(line.unit === undefined ? {} : { unit: line.unit }),
    discount_pct: line.discount_pct ?? null,
    vat_exempt: line.vat_exempt ?? false,
    order_id: line.order_id ?? null,
    order_line_id: line.order_line_id ?? null,
    quantity_received: null,
    purchase_type: purchaseType,
    expense_account: purchaseLineAccount(env, line.sku, purchaseType),
  };
}

/** Stores the document under its id and its (buyer, type, number), and links it to its orders. */
function storeDocument(env: DomainEnv, doc: PurchaseDocument): void {
  env.state.documents[doc.id] = doc;
  env.state.documentTallies[doc.id] = { creations: 1, duplicateAttempts: 0 };
  env.state.documentKeys[documentKey(doc.type, doc.number, doc.buyer.id)] = doc.id;
  for (const orderId of doc.order_ids) {
    const order = env.state.orders[orderId];
    if (order && !order.related_document_ids.includes(doc.id)) {
      order.related_document_ids.push(doc.id);
      order.updated_at = stampAfter(env, order.updated_at);
    }
  }
}

function totalsOf(input: DocumentInput['totals']): Totals {
  const totals: Totals = { before_vat: input.before_vat, vat: input.vat, with_vat: input.with_vat };
  if (input.discount !== undefined) totals.discount = input.discount;
  return totals;
}

export function getDocument(env: DomainEnv, documentId: string): PurchaseDocument {
  const doc = env.state.documents[documentId];
  if (!doc) throw notFound('Document', documentId);
  return doc;
}

/** History only with expand=history; everything else is always present. */
export function documentView(doc: PurchaseDocument, expand: string | null): Record<string, unknown> {
  const parts = new Set((expand ?? '').split(','));
  const omitted = (key: string) =>
    (key === 'history' && !parts.has('history')) || (key === 'lines' && parts.has('-lines'));
  // Copies the kept fields one by one rather than cloning a spread copy with fields deleted (a delete turns an
  // object into a slow dictionary): an export raises one view per document it completes.
  const source = doc as unknown as Record<string, unknown>;
  const view: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (omitted(key) || value === undefined || typeof value === 'function' || typeof value === 'symbol')
      continue;
    view[key] = clone(value);
  }
  return view;
}

export function documentEventData(
  doc: PurchaseDocument,
): { object: string; id: string } & Record<string, unknown> {
  const view = documentView(doc, null);
  view['object'] = 'document';
  view['id'] = doc.id;
  return view as { object: string; id: string } & Record<string, unknown>;
}
