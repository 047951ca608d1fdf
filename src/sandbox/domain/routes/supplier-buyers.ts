/** GET/PATCH /supplier/buyers and POST /supplier/buyer-invitations (part 4.2). */
import { checkIfMatch, etagFor } from '../../http/etag.js';
import type { RouteDef } from '../../http/types.js';
import { createInvitation, getSupplierBuyer, invitationView, patchSupplierBuyer } from '../buyers.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { InvitationBody, PatchBuyerBody } from '../requests.js';
import { parseBody } from '../validate.js';
import { SUPPLIER_GROUP, isDemoSupplier, ok, pageReply, requireOwner } from './common.js';

export function supplierBuyerRoutes(env: DomainEnv): RouteDef[] {
  const base = { accountType: 'supplier', group: SUPPLIER_GROUP } as const;
  return [
    {
      ...base,
      method: 'GET',
      path: '/supplier/buyers',
      scope: 'supplier.buyers:read',
      handle: (ctx) =>
        pageReply(env, isDemoSupplier(ctx) ? Object.values(env.state.supplierBuyers) : [], ctx.query),
    },
    {
      ...base,
      method: 'GET',
      path: '/supplier/buyers/:buyer_id',
      scope: 'supplier.buyers:read',
      handle: (ctx) => {
        const id = ctx.params['buyer_id'] ?? '';
        requireOwner(isDemoSupplier(ctx), 'Buyer', id);
        const buyer = getSupplierBuyer(env, id);
        return ok(clone(buyer), { ETag: etagFor(buyer.id, buyer.updated_at) });
      },
    },
    {
      ...base,
      method: 'PATCH',
      path: '/supplier/buyers/:buyer_id',
      scope: 'supplier.buyers:write',
      handle: (ctx) => {
        const id = ctx.params['buyer_id'] ?? '';
        requireOwner(isDemoSupplier(ctx), 'Buyer', id);
        const current = getSupplierBuyer(env, id);
        checkIfMatch(ctx.headers, etagFor(current.id, current.updated_at));
        const buyer = patchSupplierBuyer(env, id, parseBody(PatchBuyerBody, ctx.body));
        return ok(clone(buyer), { ETag: etagFor(buyer.id, buyer.updated_at) });
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/supplier/buyer-invitations',
      scope: 'supplier.buyers:write',
      idempotency: 'optional',
      handle: (ctx) => {
        const invitation = createInvitation(env, parseBody(InvitationBody, ctx.body));
        return { status: 201, body: invitationView(invitation) };
      },
    },
  ];
}
