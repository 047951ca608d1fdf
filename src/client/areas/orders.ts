/** Supplier orders: list, read (with ETag), and the operations chosen for the contract's gaps G1-G3. */
import type { Order } from '../../contract/index.js';
import { requestResource, requestResourceWithMeta, type ClientContext, type WithMeta } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import {
  callOf,
  listSpec,
  type DateRange,
  type Expand,
  type ListOptions,
  type UpdatedSince,
} from './common.js';
import { ORDER_ROUTES } from './gap-routes.js';
import type { AcknowledgeOrderBody, ConfirmOrderBody, RejectOrderBody } from '../request-types.js';

export interface SupplierOrderFilters extends UpdatedSince, DateRange, Expand {
  /** Order statuses, sent comma-separated; default every status. */
  status?: readonly string[];
  buyer_id?: string;
}

export function createOrdersApi(ctx: ClientContext) {
  const getSpec = (orderId: string, options: CallOptions & Expand) =>
    ({
      method: 'GET',
      route: ORDER_ROUTES.one,
      params: { order_id: orderId },
      query: { expand: options.expand },
      ...callOf(options),
    }) as const;
  const post = (route: string, orderId: string, body: object, options?: CallOptions) =>
    requestResource(
      ctx,
      { method: 'POST', route, params: { order_id: orderId }, json: body, ...callOf(options) },
      parsers.order,
    );
  return {
    list(options: ListOptions<SupplierOrderFilters> = {}): Paginated<Order> {
      return paginate(ctx, listSpec(ORDER_ROUTES.list, options), parsers.order);
    },
    get(orderId: string, options: CallOptions & Expand = {}): Promise<Order> {
      return requestResource(ctx, getSpec(orderId, options), parsers.order);
    },
    getWithEtag(orderId: string, options: CallOptions & Expand = {}): Promise<WithMeta<Order>> {
      return requestResourceWithMeta(ctx, getSpec(orderId, options), parsers.order);
    },
    confirm(orderId: string, body: ConfirmOrderBody = {}, options?: CallOptions): Promise<Order> {
      return post(ORDER_ROUTES.confirm, orderId, body, options);
    },
    acknowledge(orderId: string, body: AcknowledgeOrderBody, options?: CallOptions): Promise<Order> {
      return post(ORDER_ROUTES.acknowledge, orderId, body, options);
    },
    reject(orderId: string, body: RejectOrderBody, options?: CallOptions): Promise<Order> {
      return post(ORDER_ROUTES.reject, orderId, body, options);
    },
  };
}

export type OrdersApi = ReturnType<typeof createOrdersApi>;
