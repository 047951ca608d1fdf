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

/** Sends the deletions one SKU at a time (none in a dry run); a failure is reported and the next SKU goes on. */
export async function removeListedProducts(input: RemoveListedInput): Promise<RemovalResult[]> {
  const results: RemovalResult[] = [];
  const report = (result: RemovalResult): void => {
    results.push(result);
    input.onResult(result);
  };
  for (const sku of input.skus) {
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
      if (error instanceof ApiError && error.status === 404) report({ sku, outcome: 'already_gone' });
      else if (error instanceof ApiError)
        report({ sku, outcome: 'failed', reason: `${error.status} ${error.code}: ${error.message}` });
      else throw error;
    }
  }
  return results;
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
