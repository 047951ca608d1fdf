/**
 * Removing products the daemon never pushed itself (listed before it was installed, or by another tool): one
 * DELETE /supplier/products/{sku} per SKU of a list. The daemon deletes only SKUs it has a record of (stored
 * hashes or pending intents); the API has no call listing a supplier's products, so older ones need this.
 *
 * A SKU the daemon does have a record of is skipped: deleting it here would leave the state saying the API holds
 * it, and the daemon would never send it again while the ERP still lists it. The daemon deletes such SKUs itself
 * when the ERP drops them.
 */
import { ApiError } from '../../client/index.js';
import { LIMITS } from '../../contract/index.js';
import type { StateStore } from '../../state/index.js';
import type { CatalogApi } from './api.js';

export type RemovalOutcome = 'deleted' | 'already_gone' | 'would_delete' | 'skipped' | 'failed';

export interface RemovalResult {
  sku: string;
  outcome: RemovalOutcome;
  /** Why a SKU was skipped or failed. */
  reason?: string;
}

export interface RemoveListedInput {
  api: Pick<CatalogApi['catalog'], 'deleteProduct'>;
  skus: readonly string[];
  dryRun: boolean;
  /** The job whose state records this SKU, if any. */
  trackedBy: (sku: string) => string | undefined;
  onResult: (result: RemovalResult) => void;
  signal?: AbortSignal;
}

export interface RemovalRun {
  results: RemovalResult[];
  /** Set when the API refused the key (401/403): the run stopped there, later SKUs were not sent. */
  refused?: { status: number; code: string; message: string; unsent: number };
}

const KEY_REFUSED: ReadonlySet<number> = new Set([401, 403]);

/**
 * Sends the deletions one SKU at a time (none in a dry run). A failure (an API error or no response) is reported
 * and the next SKU goes on, except a refused key (401/403): every later DELETE would fail the same way, so the run
 * stops there.
 */
export async function removeListedProducts(input: RemoveListedInput): Promise<RemovalRun> {
  const results: RemovalResult[] = [];
  const report = (result: RemovalResult): void => {
    results.push(result);
    input.onResult(result);
  };
  for (const [index, sku] of input.skus.entries()) {
    if (input.signal?.aborted === true) break;
    const job = input.trackedBy(sku);
    if (job !== undefined) {
      report({
        sku,
        outcome: 'skipped',
        reason: `job ${job} synced it: the daemon deletes it when the ERP drops it`,
      });
      continue;
    }
    if (input.dryRun) {
      report({ sku, outcome: 'would_delete' });
      continue;
    }
    try {
      await input.api.deleteProduct(sku, input.signal === undefined ? {} : { signal: input.signal });
      report({ sku, outcome: 'deleted' });
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      if (error instanceof ApiError && error.status === 404) {
        report({ sku, outcome: 'already_gone' });
        continue;
      }
      const reason =
        error instanceof ApiError ? `${error.status} ${error.code}: ${error.message}` : error.message;
      report({ sku, outcome: 'failed', reason });
      if (error instanceof ApiError && KEY_REFUSED.has(error.status)) {
        const unsent = input.skus.length - index - 1;
        return {
          results,
          refused: { status: error.status, code: error.code, message: error.message, unsent },
        };
      }
    }
  }
  return { results };
}

/** A catalog job's product hashes or pending product intents: `<job>:products` or `<job>:products:pending`. */
const PRODUCT_FLOW = /^(.+):products(?::pending)?$/;

/**
 * The job whose state records the SKU (stored hash or pending intent), if any. Every catalog job found in the
 * state counts, also one no longer in the config: its hashes still tell the daemon the API holds the SKU.
 */
export function trackerOf(state: StateStore | undefined): (sku: string) => string | undefined {
  if (state === undefined) return () => undefined;
  const productFlows = state.hashes
    .flows()
    .map((flow) => ({ flow, job: PRODUCT_FLOW.exec(flow)?.[1] }))
    .filter((entry): entry is { flow: string; job: string } => entry.job !== undefined);
  return (sku) => productFlows.find(({ flow }) => state.hashes.get(flow, sku) !== undefined)?.job;
}

export class SkuListError extends Error {
  override readonly name = 'SkuListError';
}

/**
 * One SKU a line; blank lines and lines starting with # are ignored, surrounding spaces trimmed, repeats kept
 * once. A SKU longer than the contract allows is refused with its line number, before anything is sent.
 */
export function parseSkuList(text: string, file: string): string[] {
  const skus = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const sku = line.trim();
    if (sku === '' || sku.startsWith('#')) return;
    if (sku.length > LIMITS.length.sku) {
      throw new SkuListError(
        `${file} line ${index + 1}: a SKU is at most ${LIMITS.length.sku} characters, this one has ${sku.length}`,
      );
    }
    skus.add(sku);
  });
  if (skus.size === 0) throw new SkuListError(`${file}: no SKUs found (expected one SKU a line)`);
  return [...skus];
}
