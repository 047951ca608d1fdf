/** What every push step shares: the API, the state file, the job's names and its counters. */
import type { Logger } from 'pino';
import type { RunBudget } from '../../engine/index.js';
import type { StateStore } from '../../state/index.js';
import type { CatalogApi } from './api.js';

export interface PushContext {
  api: CatalogApi;
  state: StateStore;
  /** The job name: dead letters are filed under it, hashes under `<job>:<kind>`. */
  job: string;
  budget: RunBudget;
  logger: Logger;
  counts: Record<string, number>;
}

export type HashKind = 'products' | 'availability' | 'prices';

export function hashFlow(job: string, kind: HashKind): string {
  return `${job}:${kind}`;
}

export function count(ctx: PushContext, name: string, n = 1): void {
  ctx.counts[name] = (ctx.counts[name] ?? 0) + n;
}

/** Stops between calls when the run's budget is spent or the daemon shuts down. */
export function shouldStop(ctx: PushContext): boolean {
  return ctx.budget.stopReason() !== null;
}

export function describeItemErrors(
  errors: readonly { field: string; code: string; message?: string | undefined }[] | undefined,
): string {
  if (errors === undefined || errors.length === 0) return 'the API refused the item without details';
  return errors.map((e) => `${e.field}: ${e.code}${e.message ? ` (${e.message})` : ''}`).join('; ');
}
