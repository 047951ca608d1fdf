/**
 * Availability with a return date (POST /supplier/products/{sku}/availability), one call per SKU. The state is
 * stored as a pending intent before the call and confirmed by its answer (intents.ts); setting availability is
 * idempotent, so a crash in between only repeats the call, even if the ERP went back to the stored state.
 */
import { ApiError, ValidationApiError } from '../../client/index.js';
import { contentHash, idempotencyKey } from '../../engine/index.js';
import type { ErpAvailability } from '../../connector-contract/index.js';
import type { Change } from './diff.js';
import { clearIntent, confirmIntents, recordIntents } from './intents.js';
import { count, describeItemErrors, shouldStop, type PushContext } from './push-context.js';
import { availabilityBody } from './snapshot.js';

/** The availability changes the product batch could not carry: one call each. */
export async function pushAvailability(
  ctx: PushContext,
  changes: readonly Change<ErpAvailability>[],
): Promise<void> {
  for (const change of changes) {
    if (shouldStop(ctx)) return;
    const deadLetterKey = `availability:${change.key}`;
    recordIntents(ctx, 'availability', [[change.key, change.hash]]);
    try {
      const body = availabilityBody(change.source);
      await ctx.api.catalog.setAvailability(change.key, body, {
        signal: ctx.budget.signal,
        // From the content and the state it replaces, as a product batch's (products.ts).
        idempotencyKey: idempotencyKey(
          'catalog-availability',
          ctx.job,
          change.key,
          contentHash({ body, replaces: change.previous ?? null }),
        ),
      });
    } catch (error) {
      if (!isItemRefusal(error)) throw error;
      ctx.state.transaction(() => {
        ctx.state.deadLetters.add(ctx.job, deadLetterKey, change.source, refusalReason(error));
        clearIntent(ctx, 'availability', change.key, change.pending);
      });
      count(ctx, 'availability_dead_lettered');
      continue;
    }
    ctx.state.transaction(() => {
      confirmIntents(ctx, 'availability', [[change.key, change.hash]]);
      ctx.state.deadLetters.resolve(ctx.job, deadLetterKey);
    });
    count(ctx, 'availability_set');
  }
}

/** 404 (no such product, e.g. its upsert failed) and 422 belong to the item; anything else fails the run. */
function isItemRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 404 || error.status === 422);
}

function refusalReason(error: ApiError): string {
  if (error instanceof ValidationApiError) return describeItemErrors(error.items);
  return `${error.status} ${error.code}: the API has no live product with this SKU`;
}
