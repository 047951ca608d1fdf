/** Buyer purchases: orders, and purchase documents (gap G15). */
import type { Document, Order } from '../../contract/index.js';
import { requestResource, type ClientContext } from '../context.js';
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
import { BUYER_DOCUMENT_ROUTES } from './gap-routes.js';

export interface BuyerOrderFilters extends UpdatedSince, DateRange, Expand {
  branch_id?: string;
  supplier_id?: string;
  status?: readonly string[];
}

export interface BuyerDocumentFilters extends UpdatedSince, DateRange, Expand {
  type?: readonly string[];
  buyer_status?: string;
  supplier_id?: string;
  branch_id?: string;
}

export function createPurchasesApi(ctx: ClientContext) {
  return {
    orders(options: ListOptions<BuyerOrderFilters> = {}): Paginated<Order> {
      return paginate(ctx, listSpec('/orders', options), parsers.order);
    },
    documents(options: ListOptions<BuyerDocumentFilters> = {}): Paginated<Document> {
      return paginate(ctx, listSpec(BUYER_DOCUMENT_ROUTES.list, options), parsers.document);
    },
    getDocument(documentId: string, options: CallOptions & Expand = {}): Promise<Document> {
      return requestResource(
        ctx,
        {
          method: 'GET',
          route: BUYER_DOCUMENT_ROUTES.one,
          params: { document_id: documentId },
          query: { expand: options.expand },
          ...callOf(options),
        },
        parsers.document,
      );
    },
  };
}

export type PurchasesApi = ReturnType<typeof createPurchasesApi>;
