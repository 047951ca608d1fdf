/** The buyer's orders (4.7). */
import { inDateRange, parseDateRange } from '../../http/paging.js';
import type { RouteDef } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { orderView, viewOptions } from '../orders.js';
import { BUYER_GROUP, NOTHING, indexedPageReply, isDemoBuyer, listParam } from './common.js';
import { orderDate } from './supplier-orders.js';

export function buyerOrderRoutes(env: DomainEnv): RouteDef[] {
  return [
    {
      accountType: 'buyer',
      group: BUYER_GROUP,
      minPlan: 'Pro',
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
