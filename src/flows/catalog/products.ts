/**
 * Product upserts (POST /supplier/products/batch, 500 a call), carrying availability changes where they can
 * (availability-routing.ts), and soft deletes.
 *
 * Crash safety: before a batch is sent, its SKUs are stored as pending intents with the hashes they will have
 * (intents.ts); the answer confirms or clears them in one transaction per batch. A crash between the two leaves
 * the intents: the next run sends those SKUs again (the batch is an upsert keyed by SKU, PUT semantics, so
 * applying it twice leaves the same product and never a duplicate), or deletes them if the ERP dropped them.
 * Its Idempotency-Key comes from the batch's content and the stored state it replaces (productBatchKey), so a
 * frozen leader's late copy of a batch the next leader re-sent is recognised by the API as a repeat.
 */
import type { BatchResponse } from '../../contract/index.js';
import { ApiError, type ProductBatchItemBody } from '../../client/index.js';
import { canonicalJson, contentHash, idempotencyKey, toBatches } from '../../engine/index.js';
import type { ProductUpsert } from './plan.js';
import { clearIntent, confirmIntents, forgetKeys, recordIntents } from './intents.js';
import { count, describeItemErrors, shouldStop, type PushContext } from './push-context.js';
import { productBody, skuOfPriceKey } from './snapshot.js';

/** Sends the plan's product batches; per-item results decide which hashes move. */
export async function pushProducts(ctx: PushContext, upserts: readonly ProductUpsert[]): Promise<void> {
  const confirmed = await resendUnconfirmedBatches(ctx, upserts);
  const rest = upserts.filter((upsert) => !confirmed.has(upsert.sku));
  for (const batch of toBatches(rest, 'products')) {
    if (shouldStop(ctx)) return;
    const items = batch.items.map((upsert) => productBody(upsert.product, upsert.available));
    const idempotencyKey = productBatchKey(ctx.job, items, batch.items);
    recordBatchIntents(ctx, batch.items, idempotencyKey, items);
    const response = await ctx.api.catalog.upsertProducts(items, {
      signal: ctx.budget.signal,
      idempotencyKey,
    });
    count(ctx, 'product_batches');
    recordBatch(ctx, batch.items, response, idempotencyKey);
  }
}

/** Where a batch sent without a recorded answer is kept, by its Idempotency-Key, until an answer is recorded. */
function unconfirmedNamespace(job: string): string {
  return `${job}:products:unconfirmed`;
}

/**
 * The reconciling re-push: a batch sent before a crash or by an earlier leader, whose answer was never recorded, is
 * sent again exactly (same body, same Idempotency-Key) before anything newer when the ERP has changed or dropped an
 * item of it since. The API then holds that key: should the original still arrive later (a frozen leader's request
 * held by the network), it is replayed, not applied over the newer values sent after this. Its answer confirms the
 * planned upserts it carried unchanged (returned by SKU, not sent again); the rest are sent by the plan. A batch
 * whose items are all still current is not re-sent: the plan sends the same content, and a late copy changes nothing.
 */
async function resendUnconfirmedBatches(
  ctx: PushContext,
  upserts: readonly ProductUpsert[],
): Promise<Set<string>> {
  const namespace = unconfirmedNamespace(ctx.job);
  const planned = new Map(
    upserts.map((upsert) => [
      upsert.sku,
      { upsert, body: canonicalJson(productBody(upsert.product, upsert.available)) },
    ]),
  );
  const confirmed = new Set<string>();
  for (const key of ctx.state.kv.keys(namespace)) {
    if (shouldStop(ctx)) return confirmed;
    const items =
      (ctx.state.kv.get(namespace, key) as { items?: ProductBatchItemBody[] } | undefined)?.items ?? [];
    // The upsert each item still is, if the plan sends that very content (and no earlier batch confirmed it).
    const current = items.map((item) => {
      const plan = planned.get(item.sku);
      return plan !== undefined && plan.body === canonicalJson(item) && !confirmed.has(item.sku)
        ? plan.upsert
        : undefined;
    });
    if (items.length === 0 || current.every((upsert) => upsert !== undefined)) {
      ctx.state.transaction(() => ctx.state.kv.delete(namespace, key));
      continue;
    }
    let response: BatchResponse | undefined;
    try {
      response = await ctx.api.catalog.upsertProducts(items, {
        signal: ctx.budget.signal,
        idempotencyKey: key,
      });
    } catch (error) {
      // All refused: the plan deals with its items (their intents are pending); anything else fails the run.
      if (!(error instanceof ApiError && error.status === 422)) throw error;
    }
    count(ctx, 'product_batches_resent');
    if (response === undefined) ctx.state.transaction(() => ctx.state.kv.delete(namespace, key));
    else recordBatch(ctx, current, response, key);
    for (const upsert of current) if (upsert !== undefined) confirmed.add(upsert.sku);
  }
  return confirmed;
}

/**
 * The batch's Idempotency-Key, from its content and what it replaces: the same send from any instance or process
 * (a frozen leader's late request, the new leader's re-send of its unconfirmed intents) has the same key, so the
 * API applies it once; a later send of the same content over a different stored state (a value changed and
 * changed back) has a key of its own and is applied again.
 */
export function productBatchKey(
  job: string,
  items: readonly ProductBatchItemBody[],
  upserts: readonly ProductUpsert[],
): string {
  return idempotencyKey(
    'catalog-products',
    job,
    contentHash({ items, replaces: upserts.map((u) => u.replaces) }),
  );
}

function recordBatchIntents(
  ctx: PushContext,
  upserts: readonly ProductUpsert[],
  idempotencyKey: string,
  items: readonly ProductBatchItemBody[],
): void {
  const products: [string, string][] = [];
  const availability: [string, string][] = [];
  for (const upsert of upserts) {
    if (upsert.productHash !== undefined) products.push([upsert.sku, upsert.productHash]);
    if (upsert.availabilityState !== undefined) availability.push([upsert.sku, upsert.availabilityState]);
  }
  ctx.state.transaction(() => {
    recordIntents(ctx, 'products', products);
    recordIntents(ctx, 'availability', availability);
    ctx.state.kv.set(unconfirmedNamespace(ctx.job), idempotencyKey, { items });
  });
}

/** `upserts` by the batch's item index; an index without one (a re-pushed item no longer planned) is skipped. */
function recordBatch(
  ctx: PushContext,
  upserts: readonly (ProductUpsert | undefined)[],
  response: BatchResponse,
  idempotencyKey: string,
): void {
  const productHashes: [string, string][] = [];
  const availabilityStates: [string, string][] = [];
  const refused: string[] = [];
  let answered = 0;
  ctx.state.transaction(() => {
    for (const result of response.items) {
      const upsert = upserts[result.index];
      if (upsert === undefined) continue;
      answered += 1;
      if (result.status === 'failed') {
        const reason = describeItemErrors(result.errors);
        ctx.state.deadLetters.add(ctx.job, `product:${upsert.sku}`, upsert.product, reason);
        if (upsert.productHash !== undefined) clearIntent(ctx, 'products', upsert.sku, upsert.productPending);
        if (upsert.availabilityState !== undefined)
          clearIntent(ctx, 'availability', upsert.sku, upsert.availabilityPending);
        refused.push(upsert.sku);
        count(ctx, 'products_dead_lettered');
        continue;
      }
      if (upsert.productHash !== undefined) productHashes.push([upsert.sku, upsert.productHash]);
      if (upsert.availabilityState !== undefined)
        availabilityStates.push([upsert.sku, upsert.availabilityState]);
      ctx.state.deadLetters.resolve(ctx.job, `product:${upsert.sku}`);
    }
    confirmIntents(ctx, 'products', productHashes);
    confirmIntents(ctx, 'availability', availabilityStates);
    ctx.state.kv.delete(unconfirmedNamespace(ctx.job), idempotencyKey);
  });
  if (refused.length > 0) {
    ctx.logger.warn(
      { refused: refused.length, skus: refused.slice(0, 20) },
      'the API refused products of a batch: their reasons are in the dead letters, the rest are confirmed',
    );
  }
  count(ctx, 'products_upserted', productHashes.length);
  count(ctx, 'availability_with_product', availabilityStates.length);
  const expected = upserts.filter((upsert) => upsert !== undefined).length;
  if (answered < expected) count(ctx, 'products_unanswered', expected - answered);
}

/**
 * Soft-deletes SKUs the ERP no longer lists (stored or pending). A 404 means the API has no live product with
 * that SKU (deleted earlier, by a run that crashed before saving, or a pending send that never arrived), which
 * is the state we want.
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
      forgetKeys(ctx, 'products', [sku]);
      forgetKeys(ctx, 'availability', [sku]);
      forgetKeys(ctx, 'prices', priceKeysBySku.get(sku) ?? []);
    });
    count(ctx, 'products_deleted');
  }
}
