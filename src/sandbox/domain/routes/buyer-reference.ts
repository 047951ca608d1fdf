/** Buyer reference data (part 4.6, scopes G16) and the buyer's orders (4.7). */
import { BUYER_REFERENCE_SCOPES } from '../../../contract/index.js';
import { inDateRange, parseDateRange } from '../../http/paging.js';
import type { RouteDef } from '../../http/types.js';
import { catalogProducts } from '../catalog-view.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { notFound } from '../errors.js';
import { orderView, viewOptions } from '../orders.js';
import {
  BUYER_GROUP,
  NOTHING,
  indexedPageReply,
  isDemoBuyer,
  listParam,
  listReply,
  ok,
  pageReply,
  requireOwner,
} from './common.js';
import { orderDate } from './supplier-orders.js';

export function buyerReferenceRoutes(env: DomainEnv): RouteDef[] {
  const base = { accountType: 'buyer', group: BUYER_GROUP, minPlan: 'Pro' } as const;
  const scopes = BUYER_REFERENCE_SCOPES;
  return [
    {
      ...base,
      method: 'GET',
      path: '/branches',
      scope: scopes['/branches'],
      handle: (ctx) => pageReply(env, isDemoBuyer(ctx) ? Object.values(env.state.branches) : [], ctx.query),
    },
    {
      ...base,
      method: 'GET',
      path: '/purchase-types',
      scope: scopes['/purchase-types'],
      handle: (ctx) => listReply(env, isDemoBuyer(ctx) ? env.state.purchaseTypes : []),
    },
    {
      ...base,
      method: 'GET',
      path: '/suppliers',
      scope: scopes['/suppliers'],
      handle: (ctx) => pageReply(env, isDemoBuyer(ctx) ? Object.values(env.state.vendors) : [], ctx.query),
    },
    {
      ...base,
      method: 'GET',
      path: '/suppliers/:supplier_id',
      scope: scopes['/suppliers/{supplier_id}'],
      handle: (ctx) => {
        const id = ctx.params['supplier_id'] ?? '';
        requireOwner(isDemoBuyer(ctx), 'Supplier', id);
        const vendor = env.state.vendors[id];
        if (!vendor) throw notFound('Supplier', id);
        return ok(clone(vendor));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/products',
      scope: scopes['/products'],
      handle: (ctx) => pageReply(env, isDemoBuyer(ctx) ? catalogProducts(env) : [], ctx.query),
    },
    {
      ...base,
      method: 'GET',
      path: '/expense-categories',
      scope: scopes['/expense-categories'],
      handle: (ctx) => listReply(env, isDemoBuyer(ctx) ? env.state.expenseCategories : []),
    },
    {
      ...base,
      method: 'GET',
      path: '/expense-accounts',
      scope: scopes['/expense-accounts'],
      handle: (ctx) => listReply(env, isDemoBuyer(ctx) ? env.state.expenseAccounts : []),
    },
    {
      ...base,
      method: 'GET',
      path: '/account-mappings',
      scope: scopes['/account-mappings'],
      handle: (ctx) => listReply(env, isDemoBuyer(ctx) ? env.state.accountMappings : []),
    },
    {
      ...base,
      method: 'GET',
      path: '/orders',
      scope: 'buyer.purchases:read',
      handle: (ctx) => {
        const range = parseDateRange(ctx.query);
        const statuses = listParam(ctx.query, 'status');
        const branchId = ctx.query.get('branch_id');
        const supplierId = ctx.query.get('supplier_id');
        const options = viewOptions(ctx.query.get('expand'));
        return indexedPageReply(
          env,
          isDemoBuyer(ctx) ? env.state.orders : NOTHING,
          ctx.query,
          (order) =>
            inDateRange(orderDate(order), range) &&
            (statuses === null || statuses.has(order.status)) &&
            (branchId === null || order.branch.id === branchId) &&
            (supplierId === null || order.supplier.id === supplierId),
          (order) => orderView(order, 'buyer', options),
        );
      },
    },
  ];
}
