/**
 * Product upserts (POST /supplier/products/batch, 500 a call), carrying availability changes where they can
 * (availability-routing.ts), and soft deletes.
 *
 * Crash safety: hashes are saved after the API answered, in one transaction per batch. A crash after a batch was
 * sent and before its hashes were saved makes the next run send the same content again. That is safe: the batch
 * is an upsert keyed by SKU (PUT semantics), so applying it twice leaves the same product and never a duplicate;
 * the cost is one repeated batch per crash.
 */
import type { BatchResponse } from '../../contract/index.js';
import { ApiError } from '../../client/index.js';
import { toBatches } from '../../engine/index.js';
import type { ProductUpsert } from './plan.js';
import { count, describeItemErrors, hashFlow, shouldStop, type PushContext } from './push-context.js';
import { productBody, skuOfPriceKey } from './snapshot.js';

/** Sends the plan's product batches; per-item results decide which hashes move. */
export async function pushProducts(ctx: PushContext, upserts: readonly ProductUpsert[]): Promise<void> {
  for (const batch of toBatches(upserts, 'products')) {
    if (shouldStop(ctx)) return;
    const items = batch.items.map((upsert) => productBody(upsert.product, upsert.available));
    const response = await ctx.api.catalog.upsertProducts(items, { signal: ctx.budget.signal });
    count(ctx, 'product_batches');
    recordBatch(ctx, batch.items, response);
  }
}

function recordBatch(ctx: PushContext, upserts: readonly ProductUpsert[], response: BatchResponse): void {
  const productHashes: [string, string][] = [];
  const availabilityStates: [string, string][] = [];
  let answered = 0;
  ctx.state.transaction(() => {
    for (const result of response.items) {
      const upsert = upserts[result.index];
      if (upsert === undefined) continue;
      answered += 1;
      if (result.status === 'failed') {
        const reason = describeItemErrors(result.errors);
        ctx.state.deadLetters.add(ctx.job, `product:${upsert.sku}`, upsert.product, reason);
        count(ctx, 'products_dead_lettered');
        continue;
      }
      if (upsert.productHash !== undefined) productHashes.push([upsert.sku, upsert.productHash]);
      if (upsert.availabilityState !== undefined)
        availabilityStates.push([upsert.sku, upsert.availabilityState]);
      ctx.state.deadLetters.resolve(ctx.job, `product:${upsert.sku}`);
    }
    ctx.state.hashes.setMany(hashFlow(ctx.job, 'products'), productHashes);
    ctx.state.hashes.setMany(hashFlow(ctx.job, 'availability'), availabilityStates);
  });
  count(ctx, 'products_upserted', productHashes.length);
  count(ctx, 'availability_with_product', availabilityStates.length);
  if (answered < upserts.length) count(ctx, 'products_unanswered', upserts.length - answered);
}

/**
 * Soft-deletes SKUs the ERP no longer lists. A 404 means the API has no live product with that SKU any more
 * (deleted earlier, or by a run that crashed before saving), which is the state we want.
 */
export async function deleteProducts(
  ctx: PushContext,
  skus: readonly string[],
  storedPriceKeys: Iterable<string>,
): Promise<void> {
  const priceKeysBySku = new Map<string, string[]>();
  for (const key of storedPriceKeys) {
    const sku = skuOfPriceKey(key);
    priceKeysBySku.set(sku, [...(priceKeysBySku.get(sku) ?? []), key]);
  }
  for (const sku of skus) {
    if (shouldStop(ctx)) return;
    try {
      await ctx.api.catalog.deleteProduct(sku, { signal: ctx.budget.signal });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
    ctx.state.transaction(() => {
      ctx.state.hashes.deleteMany(hashFlow(ctx.job, 'products'), [sku]);
      ctx.state.hashes.deleteMany(hashFlow(ctx.job, 'availability'), [sku]);
      ctx.state.hashes.deleteMany(hashFlow(ctx.job, 'prices'), priceKeysBySku.get(sku) ?? []);
    });
    count(ctx, 'products_deleted');
  }
}
