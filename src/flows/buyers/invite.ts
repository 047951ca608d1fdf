/**
 * Invites ERP customers that are not linked buyers yet. One invitation per customer, ever: the ledger remembers it
 * beyond the API's 24-hour idempotency window, and the Idempotency-Key derived from the customer number covers a
 * crash between the API's answer and the ledger write.
 */
import type { ApiClient, BuyerInvitationBody } from '../../client/index.js';
import type { ErpCustomer } from '../../connector-contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import { idempotencyKey } from '../../engine/index.js';
import type { LedgerKey, StateStore } from '../../state/index.js';
import { isConflict } from '../shared/failures.js';
import type { BuyersOptions } from './options.js';

export interface InviteContext {
  api: Pick<ApiClient, 'supplierBuyers'>;
  state: StateStore;
  flow: string;
  connector: string;
  mappings: Mappings;
  options: BuyersOptions['invite'];
  signal: AbortSignal;
}

export function invitationKey(customerNumber: string): string {
  return idempotencyKey('buyer-invitation', customerNumber);
}

/** Customers to invite: unlinked, with an e-mail address, limited to the configured list when there is one. */
export function inviteCandidates(
  customers: readonly ErpCustomer[],
  linkedNumbers: ReadonlySet<string>,
  options: BuyersOptions['invite'],
): ErpCustomer[] {
  const only = new Set(options.customers);
  return customers.filter(
    (customer) =>
      !linkedNumbers.has(customer.customerNumber) &&
      customer.email !== null &&
      (only.size === 0 || only.has(customer.customerNumber)),
  );
}

function invitationBody(customer: ErpCustomer, ctx: InviteContext): BuyerInvitationBody {
  const priceList =
    customer.priceList === null
      ? undefined
      : ctx.mappings[ctx.options.price_list_mapping]?.[customer.priceList];
  return {
    business_name: customer.name,
    contact_email: customer.email ?? '',
    customer_number: customer.customerNumber,
    ...(customer.taxId === null ? {} : { tax_id: customer.taxId }),
    ...(priceList === undefined ? {} : { price_list_id: priceList }),
  };
}

export type InviteOutcome = 'invited' | 'already_invited' | 'open_elsewhere';

function invitationLedgerKey(
  customer: ErpCustomer,
  ctx: Pick<InviteContext, 'flow' | 'connector'>,
): LedgerKey {
  return {
    flow: ctx.flow,
    connector: ctx.connector,
    recordKey: `invitation:${customer.customerNumber}`,
    version: 'sent',
  };
}

/** Whether an invitation for this customer was already sent (or found open) by an earlier run. */
export function wasInvited(
  customer: ErpCustomer,
  ctx: Pick<InviteContext, 'state' | 'flow' | 'connector'>,
): boolean {
  return ctx.state.ledger.has(invitationLedgerKey(customer, ctx));
}

export async function inviteCustomer(customer: ErpCustomer, ctx: InviteContext): Promise<InviteOutcome> {
  const key = invitationLedgerKey(customer, ctx);
  if (ctx.state.ledger.has(key)) return 'already_invited';
  let outcome: InviteOutcome = 'invited';
  let invitationId: string | null = null;
  try {
    const invitation = await ctx.api.supplierBuyers.invite(invitationBody(customer, ctx), {
      signal: ctx.signal,
      idempotencyKey: invitationKey(customer.customerNumber),
    });
    invitationId = invitation.id;
  } catch (error) {
    // 409: an invitation for this address is already open (sent by hand, or by us before the key expired).
    if (!isConflict(error)) throw error;
    outcome = 'open_elsewhere';
  }
  ctx.state.ledger.record(key, invitationId);
  return outcome;
}
