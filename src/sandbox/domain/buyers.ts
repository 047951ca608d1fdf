/** Linked buyers as the supplier sees them, and buyer invitations (G27). */
import type * as z from 'zod';
import type { DomainEnv } from './env.js';
import { clone, newId, nowIso, raiseToSupplier, stampAfter } from './env.js';
import { conflict, invalidField, notFound } from './errors.js';
import type { InvitationBody, PatchBuyerBody } from './requests.js';
import type { BuyerInvitation, SupplierBuyer } from './types.js';

/** Invitations expire 14 days after creation. */
const INVITATION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

export function getSupplierBuyer(env: DomainEnv, buyerId: string): SupplierBuyer {
  const buyer = env.state.supplierBuyers[buyerId];
  if (!buyer) throw notFound('Buyer', buyerId);
  return buyer;
}

export function patchSupplierBuyer(
  env: DomainEnv,
  buyerId: string,
  input: z.output<typeof PatchBuyerBody>,
): SupplierBuyer {
  const buyer = getSupplierBuyer(env, buyerId);
  let changed = false;
  if (input.customer_number !== undefined && input.customer_number !== buyer.customer_number) {
    buyer.customer_number = input.customer_number;
    changed = true;
  }
  if (input.erp_ref !== undefined && input.erp_ref !== buyer.erp_ref) {
    buyer.erp_ref = input.erp_ref;
    changed = true;
  }
  if (changed) {
    buyer.updated_at = stampAfter(env, buyer.updated_at);
    syncCustomerNumber(env, buyer);
  }
  return buyer;
}

/** Orders carry the buyer's customer number as this supplier knows it. */
function syncCustomerNumber(env: DomainEnv, buyer: SupplierBuyer): void {
  for (const order of Object.values(env.state.orders)) {
    if (order.buyer.id === buyer.id) order.buyer.customer_number = buyer.customer_number;
  }
}

type StoredInvitation = DomainEnv['state']['invitations'][string];

export function invitationView(invitation: StoredInvitation): BuyerInvitation {
  return {
    id: invitation.id,
    status: invitation.status,
    onboarding_url: invitation.onboarding_url,
    expires_at: invitation.expires_at,
  };
}

export function createInvitation(env: DomainEnv, input: z.output<typeof InvitationBody>): StoredInvitation {
  // A body field naming a missing resource is a validation item (part 4.2 lists 409 and 422, not 404).
  if (input.price_list_id && !env.state.priceLists[input.price_list_id])
    throw invalidField('price_list_id', 'not_found', `Price list ${input.price_list_id} was not found.`);
  const open = Object.values(env.state.invitations).find(
    (invitation) => invitation.status === 'sent' && invitation.contact_email === input.contact_email,
  );
  if (open) throw conflict(`An open invitation already exists for ${input.contact_email} (${open.id}).`);
  const now = env.services.clock.now();
  const id = newId(env, 'inv');
  const invitation: StoredInvitation = {
    id,
    status: 'sent',
    onboarding_url: `https://sandbox.invalid/onboarding/${id}`,
    expires_at: new Date(now + INVITATION_TTL_MS).toISOString(),
    business_name: input.business_name,
    contact_email: input.contact_email,
    customer_number: input.customer_number ?? null,
    price_list_id: input.price_list_id ?? null,
    created_at: new Date(now).toISOString(),
  };
  env.state.invitations[id] = invitation;
  return invitation;
}

/** sent -> expired once 14 days have passed (checked lazily whenever invitations are read). */
export function expireInvitations(env: DomainEnv): void {
  const now = env.services.clock.now();
  for (const invitation of Object.values(env.state.invitations)) {
    if (invitation.status === 'sent' && Date.parse(invitation.expires_at) <= now)
      invitation.status = 'expired';
  }
}

/** sent -> accepted: the new buyer is linked (event buyer.linked). */
export function acceptInvitation(env: DomainEnv, invitationId: string | undefined): SupplierBuyer {
  expireInvitations(env);
  const invitation =
    invitationId === undefined
      ? Object.values(env.state.invitations).find((candidate) => candidate.status === 'sent')
      : env.state.invitations[invitationId];
  if (!invitation) throw notFound('Invitation', invitationId ?? '(any open)');
  if (invitation.status !== 'sent') throw conflict(`Invitation ${invitation.id} is ${invitation.status}.`);
  invitation.status = 'accepted';
  const now = nowIso(env);
  const buyer: SupplierBuyer = {
    id: newId(env, 'byr'),
    name: invitation.business_name,
    tax_id: null,
    status: 'active',
    customer_number: invitation.customer_number,
    erp_ref: null,
    branches: [],
    min_order: null,
    payment_terms: null,
    price_list_id: invitation.price_list_id,
    created_at: now,
    updated_at: now,
  };
  env.state.supplierBuyers[buyer.id] = buyer;
  if (buyer.price_list_id) env.state.priceLists[buyer.price_list_id]?.buyer_ids.push(buyer.id);
  raiseToSupplier(env, 'buyer.linked', { ...clone(buyer), object: 'buyer', id: buyer.id });
  return buyer;
}
