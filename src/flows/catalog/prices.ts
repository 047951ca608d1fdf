/**
 * Prices (PUT /supplier/price-lists/{id}/prices, 500 entries a call), grouped by price list. Each batch's entries
 * are stored as pending intents before the call and confirmed or cleared by its answer (intents.ts). A PUT of
 * the same entries is idempotent, so a crash in between only repeats the same call, even if the ERP went back to
 * the stored price meanwhile.
 */
import { toBatches } from '../../engine/index.js';
import type { Change } from './diff.js';
import { clearIntent, confirmIntents, forgetKeys, recordIntents } from './intents.js';
import { count, describeItemErrors, shouldStop, type PushContext } from './push-context.js';
import { priceBody, type MappedPrice } from './snapshot.js';

export async function pushPrices(ctx: PushContext, changes: readonly Change<MappedPrice>[]): Promise<void> {
  const byList = new Map<string, Change<MappedPrice>[]>();
  for (const change of changes) {
    const list = byList.get(change.source.priceListId) ?? [];
    list.push(change);
    byList.set(change.source.priceListId, list);
  }
  for (const [priceListId, listChanges] of byList) {
    for (const batch of toBatches(listChanges, 'priceEntries')) {
      if (shouldStop(ctx)) return;
      recordIntents(
        ctx,
        'prices',
        batch.items.map((change) => [change.key, change.hash] as const),
      );
      const items = batch.items.map((change) => priceBody(change.source.price));
      const response = await ctx.api.priceLists.putPrices(priceListId, items, { signal: ctx.budget.signal });
      count(ctx, 'price_batches');
      const hashes: [string, string][] = [];
      ctx.state.transaction(() => {
        for (const result of response.items) {
          const change = batch.items[result.index];
          if (change === undefined) continue;
          const deadLetterKey = `price:${priceListId}:${change.source.price.sku}`;
          if (result.status === 'failed') {
            ctx.state.deadLetters.add(
              ctx.job,
              deadLetterKey,
              change.source,
              describeItemErrors(result.errors),
            );
            clearIntent(ctx, 'prices', change.key, change.pending);
            count(ctx, 'prices_dead_lettered');
            continue;
          }
          hashes.push([change.key, change.hash]);
          ctx.state.deadLetters.resolve(ctx.job, deadLetterKey);
        }
        confirmIntents(ctx, 'prices', hashes);
      });
      count(ctx, 'prices_put', hashes.length);
    }
  }
}

/**
 * Prices the ERP dropped (stored or pending): the API has no call to remove one entry, so only our hash and
 * intent go (logged).
 */
export function forgetRemovedPrices(ctx: PushContext, keys: readonly string[]): void {
  if (keys.length === 0) return;
  ctx.state.transaction(() => forgetKeys(ctx, 'prices', keys));
  count(ctx, 'prices_removed_in_erp', keys.length);
  ctx.logger.warn(
    { prices: keys.length },
    'prices removed in the ERP stay in the API price lists (the API offers no call to remove a price entry)',
  );
}
