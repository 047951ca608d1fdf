/** Supplier buyers: linked buyers, their ERP mapping (with If-Match), invitations. */
import type { BuyerInvitation, SupplierBuyer } from '../../contract/index.js';
import { requestResource, requestResourceWithMeta, type ClientContext, type WithMeta } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf, listSpec, type ListOptions, type UpdatedSince } from './common.js';
import type { BuyerInvitationBody, PatchSupplierBuyerBody } from '../request-types.js';

const BUYER_ROUTE = '/supplier/buyers/{buyer_id}';

export function createSupplierBuyersApi(ctx: ClientContext) {
  const getSpec = (buyerId: string, options?: CallOptions) =>
    ({ method: 'GET', route: BUYER_ROUTE, params: { buyer_id: buyerId }, ...callOf(options) }) as const;
  return {
    list(options: ListOptions<UpdatedSince> = {}): Paginated<SupplierBuyer> {
      return paginate(ctx, listSpec('/supplier/buyers', options), parsers.supplierBuyer);
    },
    get(buyerId: string, options?: CallOptions): Promise<SupplierBuyer> {
      return requestResource(ctx, getSpec(buyerId, options), parsers.supplierBuyer);
    },
    /** The buyer with its ETag, for a later update with ifMatch. */
    getWithEtag(buyerId: string, options?: CallOptions): Promise<WithMeta<SupplierBuyer>> {
      return requestResourceWithMeta(ctx, getSpec(buyerId, options), parsers.supplierBuyer);
    },
    /** PATCH; with ifMatch a concurrent change gives 412 precondition_failed (never retried). */
    update(
      buyerId: string,
      body: PatchSupplierBuyerBody,
      options: CallOptions & { ifMatch?: string } = {},
    ): Promise<SupplierBuyer> {
      return requestResource(
        ctx,
        {
          method: 'PATCH',
          route: BUYER_ROUTE,
          params: { buyer_id: buyerId },
          json: body,
          ...(options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }),
          ...callOf(options),
        },
        parsers.supplierBuyer,
      );
    },
    /** POST /supplier/buyer-invitations; pass idempotencyKey (e.g. the ERP customer id) to make it repeatable. */
    invite(body: BuyerInvitationBody, options?: CallOptions): Promise<BuyerInvitation> {
      return requestResource(
        ctx,
        { method: 'POST', route: '/supplier/buyer-invitations', json: body, ...callOf(options) },
        parsers.buyerInvitation,
      );
    },
  };
}

export type SupplierBuyersApi = ReturnType<typeof createSupplierBuyersApi>;
