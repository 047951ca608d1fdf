/**
 * The batches a journal-export job has saved and not finished, as an operator sees them, and the removal of one
 * that cannot be read. A readable batch is never removed here: the job's next run finishes it (writes it unless it
 * is in the books already, then marks its lines exported), and removing it could put its lines in the books twice.
 */
import type { StateStore } from '../../state/index.js';
import { PlanStore } from './plans.js';
import { StoredPlanError } from './stored-plan.js';

export type SavedBatch =
  | {
      readonly job: string;
      readonly batchKey: string;
      readonly readable: true;
      readonly savedAt: string;
      readonly lines: number;
      readonly entries: number;
      readonly periods: readonly string[];
      /** Written to the books (at `location`), its lines not yet marked exported. */
      readonly written: boolean;
      readonly location: string | null;
    }
  | {
      readonly job: string;
      readonly batchKey: string;
      readonly readable: false;
      /** `newer`: in a form a later version writes; `damaged`: anything else. */
      readonly kind: StoredPlanError['kind'];
      readonly damage: string;
    };

/** Every saved batch of `job`, the unreadable ones with the reason, oldest readable first. */
export function savedBatches(state: StateStore, job: string): SavedBatch[] {
  const plans = new PlanStore(state, job);
  const readable: Array<SavedBatch & { readable: true; createdAt: number }> = [];
  const damaged: SavedBatch[] = [];
  for (const batchKey of plans.keys()) {
    try {
      const plan = plans.get(batchKey);
      if (plan === undefined) continue; // removed meanwhile
      readable.push({
        job,
        batchKey,
        readable: true,
        createdAt: plan.createdAt,
        savedAt: new Date(plan.createdAt).toISOString(),
        lines: plan.lineIds.length,
        entries: plan.batch.entries.length,
        periods: plan.periods,
        written: plan.written,
        location: plan.location,
      });
    } catch (error) {
      if (!(error instanceof StoredPlanError)) throw error;
      damaged.push({ job, batchKey, readable: false, kind: error.kind, damage: error.message });
    }
  }
  readable.sort((a, b) => a.createdAt - b.createdAt || (a.batchKey < b.batchKey ? -1 : 1));
  return [...damaged, ...readable.map(({ createdAt: _createdAt, ...batch }) => batch)];
}

/** The batch was not removed: it can be read, or (without `newer`) a newer version can read it. */
export class BatchKeptError extends Error {
  override readonly name = 'BatchKeptError';
}

/**
 * Removes a saved batch that cannot be read. Returns false when `job` has no batch of that key; throws
 * BatchKeptError when the batch can be read (the next run finishes it) or is in a newer form and `newer` is not
 * set (the version that saved it finishes it).
 */
export function dropUnreadableBatch(
  state: StateStore,
  job: string,
  batchKey: string,
  options: { newer?: boolean } = {},
): boolean {
  const plans = new PlanStore(state, job);
  return state.transaction(() => {
    let plan;
    try {
      plan = plans.get(batchKey);
    } catch (error) {
      if (!(error instanceof StoredPlanError)) throw error;
      if (error.kind === 'newer' && options.newer !== true) {
        throw new BatchKeptError(
          `the saved batch ${batchKey} of job ${job} is in a form only a newer version reads: that version ` +
            'finishes it; it was not removed (if no version wrote it, the form is damage: add --newer)',
        );
      }
      plans.remove(batchKey);
      return true;
    }
    if (plan === undefined) return false;
    const next = plan.written
      ? 'it is in the books; its lines get marked exported'
      : 'writes it unless the books have it, then marks its lines exported';
    throw new BatchKeptError(
      `the saved batch ${batchKey} of job ${job} can be read: the next run of ${job} finishes it (${next}); ` +
        'it was not removed',
    );
  });
}
