/** Documents for both sides: POST/GET /supplier/documents (G7, G8) and the buyer's GET /documents (G15). */
import { BUYER_DOCUMENT_ENDPOINTS } from '../../../contract/index.js';
import { inDateRange, parseDateRange } from '../../http/paging.js';
import type { RequestContext, RouteDef } from '../../http/types.js';
import { createDocument, documentView, getDocument } from '../documents.js';
import type { DomainEnv } from '../env.js';
import { DocumentBody } from '../requests.js';
import type { PurchaseDocument } from '../types.js';
import { parseBody } from '../validate.js';
import {
  BUYER_GROUP,
  NOTHING,
  SUPPLIER_GROUP,
  indexedPageReply,
  isDemoBuyer,
  isDemoSupplier,
  listParam,
  ok,
  requireOwner,
} from './common.js';

function documentFilter(ctx: RequestContext, buyerSide: boolean): (doc: PurchaseDocument) => boolean {
  const range = parseDateRange(ctx.query);
  const types = listParam(ctx.query, 'type');
  const statuses = listParam(ctx.query, 'buyer_status');
  const supplierId = buyerSide ? ctx.query.get('supplier_id') : null;
  const branchId = buyerSide ? ctx.query.get('branch_id') : null;
  return (doc) =>
    inDateRange(doc.date, range) &&
    (types === null || types.has(doc.type)) &&
    (statuses === null || statuses.has(doc.buyer_status)) &&
    (supplierId === null || doc.supplier.id === supplierId) &&
    (branchId === null || doc.branch?.id === branchId);
}

export function documentRoutes(env: DomainEnv): RouteDef[] {
  const supplier = { accountType: 'supplier', group: SUPPLIER_GROUP } as const;
  const buyer = {
    accountType: 'buyer',
    group: BUYER_GROUP,
    minPlan: 'Pro',
    scope: BUYER_DOCUMENT_ENDPOINTS.list.scope,
  } as const;
  const list = (ctx: RequestContext, owned: boolean, buyerSide: boolean) => {
    const expand = ctx.query.get('expand');
    const matches = documentFilter(ctx, buyerSide);
    return indexedPageReply(env, owned ? env.state.documents : NOTHING, ctx.query, matches, (doc) =>
      documentView(doc, expand),
    );
  };
  const one = (ctx: RequestContext, owned: boolean) => {
    const id = ctx.params['document_id'] ?? '';
    requireOwner(owned, 'Document', id);
    return ok(documentView(getDocument(env, id), ctx.query.get('expand')));
  };
  return [
    {
      ...supplier,
      method: 'POST',
      path: '/supplier/documents',
      scope: 'supplier.documents:write',
      idempotency: 'required',
      handle: (ctx) => {
        const input = parseBody(DocumentBody, ctx.body);
        requireOwner(isDemoSupplier(ctx), 'Buyer', input.buyer_id);
        const { branch_id: branchId, ...rest } = input;
        const doc = createDocument(
          env,
          ctx.caller.accountId,
          branchId === null || branchId === undefined ? rest : { ...rest, branch_id: branchId },
        );
        return { status: 201, body: documentView(doc, null) };
      },
    },
    {
      ...supplier,
      method: 'GET',
      path: '/supplier/documents',
      scope: 'supplier.documents:read',
      handle: (ctx) => list(ctx, isDemoSupplier(ctx), false),
    },
    {
      ...supplier,
      method: 'GET',
      path: '/supplier/documents/:document_id',
      scope: 'supplier.documents:read',
      handle: (ctx) => one(ctx, isDemoSupplier(ctx)),
    },
    { ...buyer, method: 'GET', path: '/documents', handle: (ctx) => list(ctx, isDemoBuyer(ctx), true) },
    { ...buyer, method: 'GET', path: '/documents/:document_id', handle: (ctx) => one(ctx, isDemoBuyer(ctx)) },
  ];
}
