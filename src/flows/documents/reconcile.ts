/**
 * After a 409 for a document this job may already have created (its idempotency window passed, or the body
 * changed because the attachment had to be uploaded again), the existing document is looked up instead of
 * creating a second one: same type, number and buyer, and the same totals, or it is someone else's document.
 */
import type { CreateDocumentBody } from '../../client/index.js';
import type { Document } from '../../contract/index.js';
import { moneyEquals } from '../../shared/decimal.js';
import type { DocumentsApi } from './api.js';

export type Reconciled =
  { kind: 'same'; id: string } | { kind: 'different'; id: string } | { kind: 'absent' };

export async function findExistingDocument(
  api: DocumentsApi,
  body: CreateDocumentBody,
  signal: AbortSignal,
): Promise<Reconciled> {
  const candidates = api.documents.list({
    type: [body.type],
    from: body.date,
    to: body.date,
    limit: 200,
    signal,
  });
  for await (const doc of candidates.items()) {
    if (doc.number !== body.number || doc.buyer.id !== body.buyer_id) continue;
    return { kind: sameDocument(doc, body) ? 'same' : 'different', id: doc.id };
  }
  return { kind: 'absent' };
}

function sameDocument(doc: Document, body: CreateDocumentBody): boolean {
  return (
    moneyEquals(doc.totals.before_vat, body.totals.before_vat) &&
    moneyEquals(doc.totals.with_vat, body.totals.with_vat) &&
    (doc.lines === undefined || doc.lines.length === body.lines.length)
  );
}
