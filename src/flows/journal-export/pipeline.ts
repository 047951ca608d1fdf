/**
 * Commits saved plans in order, writing each batch while the previous batch's export call is still under way:
 * the target and the API work at the same time. Each plan still goes write -> export on its own (commit.ts), and
 * batches are written one at a time; at most one export call is in flight.
 */
import { requestSent } from '../../shared/request-sent.js';
import { finishPlan, writePlan, type CommitContext } from './commit.js';
import type { BatchPlan } from './plans.js';

export class CommitPipeline {
  #exporting: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: CommitContext) {}

  /** Writes the plan's batch, then starts marking it exported once the previous batch is marked. */
  async commit(plan: BatchPlan): Promise<void> {
    let written: BatchPlan | null;
    try {
      written = await writePlan(this.ctx, plan);
    } catch (error) {
      await this.settle();
      throw error;
    }
    await this.#exporting;
    if (written === null) return;
    // The entries are in the target now; marking them exported needs only the ids, so the entries can go.
    const { prepared: _prepared, ...ids } = written;
    this.#exporting = finishPlan(this.ctx, { ...ids, batch: { ...written.batch, entries: [] } });
    // Observed by the next commit, drain or settle; never left unhandled in between.
    this.#exporting.catch(() => undefined);
    // Let the export call leave now, before the walk maps its next lines in promise continuations.
    await requestSent();
  }

  /** Waits for the export call in flight; throws its failure. */
  drain(): Promise<void> {
    return this.#exporting;
  }

  /** Waits for the export call in flight, whatever its outcome (before giving up on a run). */
  async settle(): Promise<void> {
    await this.#exporting.catch(() => undefined);
  }
}
