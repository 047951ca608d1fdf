/**
 * Never delete from a partial read: when the connector says its product read did not see the whole catalog, the
 * run removes nothing (no product, price or availability the read missed), counts what it held back, and leaves one
 * open dead letter saying why, which the notifications carry. A later complete read resolves that letter.
 */
import type { ReadCompleteness } from '../../connector-contract/index.js';
import type { CatalogPlan } from './plan.js';
import type { PushContext } from './push-context.js';

/** The dead letter's record key, one per catalog job. */
export const DELETIONS_HELD_KEY = 'catalog:deletions_held';

/** The plan with its removals held back when the read was partial; the plan as it was after a complete read. */
export function holdDeletionsUnlessComplete(
  push: PushContext,
  plan: CatalogPlan,
  completeness: ReadCompleteness,
  dryRun: boolean,
): CatalogPlan {
  if (completeness.complete) {
    if (!dryRun) push.state.deadLetters.resolve(push.job, DELETIONS_HELD_KEY);
    return plan;
  }
  const held = plan.products.removed.length;
  push.counts['deletions_held'] = held;
  push.counts['products_removed'] = 0;
  push.logger.warn({ held, reason: completeness.reason }, 'partial product read: deletions held back');
  if (!dryRun) recordHeldDeletions(push, plan.snapshotProductCount, held, completeness.reason);
  return {
    ...plan,
    products: { ...plan.products, removed: [] },
    availability: { ...plan.availability, removed: [] },
    prices: { ...plan.prices, removed: [] },
  };
}

function recordHeldDeletions(push: PushContext, productsRead: number, held: number, reason: string): void {
  push.state.deadLetters.add(
    push.job,
    DELETIONS_HELD_KEY,
    { productsRead, removalsHeld: held },
    `the ERP's product read was not complete (${reason}); no product was removed this run ` +
      `(${held} would have been). Fix the cause named here; the next complete read removes what is really gone`,
  );
}
