/** The background loop's work: webhook deliveries, file cleanup, export jobs, pruning of idempotency keys. */
import { cleanupFiles } from '../platform/files.js';
import { advanceExports } from '../platform/exports.js';
import type { PlatformContext } from '../platform/context.js';
import type { IdempotencyStore } from '../platform/idempotency.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';

const PRUNE_EVERY_MS = 5_000;

/** One run of the loop; an error is reported and the next run tries again. */
export function backgroundTick(
  ctx: PlatformContext,
  dispatcher: WebhookDispatcher,
  idempotency: IdempotencyStore,
  onError: (error: unknown) => void,
): () => void {
  const { clock } = ctx;
  let lastPrune = clock.now();
  return () => {
    try {
      dispatcher.tick();
      cleanupFiles(ctx);
      advanceExports(ctx);
      if (clock.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = clock.now();
        idempotency.prune();
      }
    } catch (error) {
      onError(error);
    }
  };
}
