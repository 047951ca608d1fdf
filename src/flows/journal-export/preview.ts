/** The dry run's output: what the batches would hold, written to a JSON file, with nothing written or exported. */
import { writeFileAtomic } from '../shared/atomic-file.js';
import type { BatchPlan } from './plans.js';
import type { Selection } from './select.js';

export interface Preview {
  readonly generated_at: string;
  readonly pending_batches: number;
  readonly batches: readonly {
    batch_key: string;
    line_ids: readonly string[];
    entries: BatchPlan['batch']['entries'];
  }[];
  readonly dead_letters: readonly { document_id: string; kind: string; reason: string }[];
}

export async function writePreview(
  file: string,
  plans: readonly BatchPlan[],
  selection: Selection,
  pendingBatches: number,
  now: number,
): Promise<Preview> {
  const preview: Preview = {
    generated_at: new Date(now).toISOString(),
    pending_batches: pendingBatches,
    batches: plans.map((plan) => ({
      batch_key: plan.batchKey,
      line_ids: plan.lineIds,
      entries: plan.batch.entries,
    })),
    dead_letters: selection.failed.map((f) => ({
      document_id: f.group.documentId,
      kind: f.kind,
      reason: f.reason,
    })),
  };
  await writeFileAtomic(file, `${JSON.stringify(preview, null, 2)}\n`);
  return preview;
}
