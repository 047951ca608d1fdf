/** Supplier catalog: product upserts (single and batched to 500), soft deletes, availability. */
import type { BatchResponse, Product } from '../../contract/index.js';
import { BATCH_LIMITS, chunkCall, requestBatch, sendInBatches } from '../batch.js';
import {
  requestNoContent,
  requestResource,
  requestResourceWithMeta,
  type ClientContext,
} from '../context.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf } from './common.js';
import type { AvailabilityBody, ProductBatchItemBody, ProductBody } from '../request-types.js';

const PRODUCT_ROUTE = '/supplier/products/{sku}';

export function createCatalogApi(ctx: ClientContext) {
  return {
    /** PUT: `created` is true on 201 (new SKU), false on 200 (updated). */
    async upsertProduct(
      sku: string,
      body: ProductBody,
      options?: CallOptions,
    ): Promise<{ product: Product; created: boolean }> {
      const result = await requestResourceWithMeta(
        ctx,
        { method: 'PUT', route: PRODUCT_ROUTE, params: { sku }, json: body, ...callOf(options) },
        parsers.product,
      );
      return { product: result.value, created: result.status === 201 };
    },
    /** Soft delete (204). */
    deleteProduct(sku: string, options?: CallOptions): Promise<void> {
      return requestNoContent(ctx, {
        method: 'DELETE',
        route: PRODUCT_ROUTE,
        params: { sku },
        ...callOf(options),
      });
    },
    /**
     * POST /supplier/products/batch, split into calls of 500; result indexes point into `items`.
     * When split, chunk i is sent with idempotency key `${idempotencyKey}:${i}`.
     */
    upsertProducts(items: readonly ProductBatchItemBody[], options?: CallOptions): Promise<BatchResponse> {
      return sendInBatches(items, BATCH_LIMITS.products, (chunkItems, chunkIndex, chunkCount) =>
        requestBatch(ctx, {
          method: 'POST',
          route: '/supplier/products/batch',
          json: { items: chunkItems },
          ...callOf(chunkCall(options, chunkIndex, chunkCount)),
        }),
      );
    },
    setAvailability(sku: string, body: AvailabilityBody, options?: CallOptions): Promise<Product> {
      return requestResource(
        ctx,
        {
          method: 'POST',
          route: '/supplier/products/{sku}/availability',
          params: { sku },
          json: body,
          ...callOf(options),
        },
        parsers.product,
      );
    },
  };
}

export type CatalogApi = ReturnType<typeof createCatalogApi>;
