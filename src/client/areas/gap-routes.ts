/** Routes of the operations chosen for the contract's gaps, read from the one place that records them. */
import {
  BUYER_DOCUMENT_ENDPOINTS,
  DOCUMENT_OPERATIONS,
  EVENT_FEED,
  ORDER_OPERATIONS,
} from '../../contract/index.js';

export const ORDER_ROUTES = {
  list: '/supplier/orders',
  one: '/supplier/orders/{order_id}',
  confirm: ORDER_OPERATIONS.confirm.path,
  acknowledge: ORDER_OPERATIONS.acknowledge.path,
  reject: ORDER_OPERATIONS.reject.path,
} as const;

export const SUPPLIER_DOCUMENT_ROUTES = {
  list: DOCUMENT_OPERATIONS.create.path,
  one: DOCUMENT_OPERATIONS.get.path,
} as const;

export const BUYER_DOCUMENT_ROUTES = {
  list: BUYER_DOCUMENT_ENDPOINTS.list.path,
  one: BUYER_DOCUMENT_ENDPOINTS.get.path,
} as const;

export const EVENT_ROUTES = { list: EVENT_FEED.path } as const;
