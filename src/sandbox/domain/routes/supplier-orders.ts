/** Supplier orders: list, get (with ETag), confirm, acknowledge, reject (part 4.3, G1-G3, G6). */
import { etagFor } from '../../http/etag.js';
import { inDateRange, parseDateRange } from '../../http/paging.js';
import type { Reply, RequestContext, RouteDef } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { acknowledgeOrder, confirmOrder, rejectOrder } from '../order-confirmation.js';
import { getSupplierOrder, orderView, viewOptions, visibleToSupplier } from '../orders.js';
import { AcknowledgeBody, ConfirmBody, RejectBody } from '../requests.js';
import type { Order } from '../types.js';
import { parseBody } from '../validate.js';
import {
  NOTHING,
  SUPPLIER_GROUP,
  callerActor,
  indexedPageReply,
  isDemoSupplier,
  listParam,
  requireOwner,
} from './common.js';

const orderReply = (order: Order, expand: string | null): Reply => ({
  status: 200,
  body: orderView(order, 'supplier', viewOptions(expand)),
  headers: { ETag: etagFor(order.id, order.updated_at) },
});

/** The order date of part 4.3's from/to: the day the buyer sent it (or created it). */
export const orderDate = (order: Order): string => order.sent_at ?? order.created_at;

const BASE = { accountType: 'supplier', group: SUPPLIER_GROUP } as const;
const orderId = (params: Readonly<Record<string, string>>): string => params['order_id'] ?? '';

/** POST /supplier/orders/:order_id/<verb> (G1-G3): owner check, 404 for an unknown order, then the operation. */
function orderOperation(
  env: DomainEnv,
  verb: 'confirm' | 'acknowledge' | 'reject',
  run: (ctx: RequestContext, id: string) => Order,
): RouteDef {
  return {
    ...BASE,
    method: 'POST',
    path: `/supplier/orders/:order_id/${verb}`,
    scope: 'supplier.orders:write',
    idempotency: 'optional',
    handle: (ctx) => {
      const id = orderId(ctx.params);
      requireOwner(isDemoSupplier(ctx), 'Order', id);
      getSupplierOrder(env, id);
      return orderReply(run(ctx, id), null);
    },
  };
}

export function supplierOrderRoutes(env: DomainEnv): RouteDef[] {
  return [
    {
      ...BASE,
      method: 'GET',
      path: '/supplier/orders',
      scope: 'supplier.orders:read',
      handle: (ctx) => {
        const range = parseDateRange(ctx.query);
        const statuses = listParam(ctx.query, 'status');
        const buyerId = ctx.query.get('buyer_id');
        const options = viewOptions(ctx.query.get('expand'));
        return indexedPageReply(
          env,
          isDemoSupplier(ctx) ? env.state.orders : NOTHING,
          ctx.query,
          (order) =>
            visibleToSupplier(order) &&
            inDateRange(orderDate(order), range) &&
            (statuses === null || statuses.has(order.status)) &&
            (buyerId === null || order.buyer.id === buyerId),
          (order) => orderView(order, 'supplier', options),
        );
      },
    },
    {
      ...BASE,
      method: 'GET',
      path: '/supplier/orders/:order_id',
      scope: 'supplier.orders:read',
      handle: (ctx) => {
        requireOwner(isDemoSupplier(ctx), 'Order', orderId(ctx.params));
        return orderReply(getSupplierOrder(env, orderId(ctx.params)), ctx.query.get('expand'));
      },
    },
    orderOperation(env, 'confirm', (ctx, id) =>
      confirmOrder(env, id, parseBody(ConfirmBody, ctx.body), callerActor(ctx)),
    ),
    orderOperation(env, 'acknowledge', (ctx, id) =>
      acknowledgeOrder(env, id, parseBody(AcknowledgeBody, ctx.body), callerActor(ctx)),
    ),
    orderOperation(env, 'reject', (ctx, id) =>
      rejectOrder(env, id, parseBody(RejectBody, ctx.body).reason, callerActor(ctx)),
    ),
  ];
}
