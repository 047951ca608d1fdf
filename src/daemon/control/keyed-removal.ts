/**
 * `catalog remove` carried out by a daemon, keyed by its command: each SKU is recorded in the state as sent before
 * its DELETE goes out and as deleted once the API answers, under the command's id. A later attempt of the same
 * command (a new leader after a failover, a restart) sends none of them again: a product listed anew since, by the
 * ERP's sync or a person, is never deleted by a repeat. A SKU recorded as sent without an answer is reported as
 * failed, naming what to check, rather than sent twice.
 */
import { ApiError } from '../../client/index.js';
import type { CatalogApi } from '../../flows/catalog/api.js';
import { removeListedProducts, trackerOf, type RemovalRun } from '../../flows/catalog/remove-listed.js';
import type { StateStore } from '../../state/index.js';

const NAMESPACE = 'command-effects';

type DeleteApi = Pick<CatalogApi['catalog'], 'deleteProduct'>;

export interface KeyedRemoval {
  readonly state: StateStore;
  readonly api: DeleteApi;
  readonly command: number;
  readonly skus: readonly string[];
  readonly stateCheck: boolean;
}

/** A SKU an earlier attempt sent without a recorded answer: reported failed, not sent again. */
function sentBefore(command: number): Error {
  return new Error(
    `an earlier attempt of command #${command} sent its DELETE and stopped before the answer; it is not sent ` +
      'twice: check the product, and give `catalog remove` again for it if it is still listed',
  );
}

export function removeKeyedByCommand(input: KeyedRemoval): Promise<RemovalRun> {
  const { state, command } = input;
  const key = (sku: string): string => `${command}:${sku}`;
  const record = (sku: string, step: 'sent' | 'deleted'): void =>
    state.transaction(() => state.kv.set(NAMESPACE, key(sku), step));
  return removeListedProducts({
    api: {
      deleteProduct: async (sku, options) => {
        const before = state.kv.get(NAMESPACE, key(sku));
        if (before === 'deleted') return;
        if (before === 'sent') throw sentBefore(command);
        record(sku, 'sent');
        try {
          await input.api.deleteProduct(sku, options);
        } catch (error) {
          // An answer from the API: gone already (404), or nothing deleted, which a repeat may send again.
          if (error instanceof ApiError && error.status === 404) record(sku, 'deleted');
          else if (error instanceof ApiError) state.transaction(() => state.kv.delete(NAMESPACE, key(sku)));
          throw error;
        }
        record(sku, 'deleted');
      },
    },
    skus: input.skus,
    dryRun: false,
    trackedBy: trackerOf(input.stateCheck ? state : undefined),
    onResult: () => undefined,
  });
}
