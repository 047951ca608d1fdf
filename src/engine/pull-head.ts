import { classifyPage } from './pull-page.js';
import type { PullOptions } from './pull-types.js';

export interface HeadResult {
  fetched: number;
  delivered: number;
}

const NOTHING: HeadResult = { fetched: 0, delivered: 0 };

/**
 * Reads the head of the stream, the records changed after the watermark, and delivers the new ones before the pass
 * re-reads its look-back window: a run nudged by a webhook reaches the new record after one short page instead of
 * after the whole window. Purely additive: delivered versions join the seen-set, so the pass that follows still
 * reads everything and skips them; failures are left to the pass, which retries and files them; no cursor moves.
 */
export async function deliverHead<T>(options: PullOptions<T>, signal: AbortSignal): Promise<HeadResult> {
  const { state, stream, deliver } = options;
  // Staged records belong in the pass's page transaction; the head only serves flows that deliver outside it.
  if (deliver === undefined || options.stageRecord !== undefined) return NOTHING;
  const watermarkMs = state.cursors.get(stream)?.watermarkMs ?? null;
  if (watermarkMs === null) return NOTHING; // a first pass starts at the head anyway
  const page = await options.fetchPage(
    { cursor: null, updatedSince: new Date(watermarkMs).toISOString() },
    signal,
  );
  if (!Array.isArray(page.items)) return NOTHING; // a malformed page is left to the pass, which reports it
  const { fresh } = classifyPage(options, page);
  if (fresh.length === 0) return { fetched: page.items.length, delivered: 0 };
  const failures =
    (await deliver(
      fresh.map((entry) => entry.item),
      signal,
    )) ?? [];
  const failed = new Set(failures.map((failure) => failure.item));
  const delivered = fresh.filter((entry) => !failed.has(entry.item));
  const flow = options.flow ?? stream;
  state.transaction(() => {
    for (const entry of delivered) state.deadLetters.resolve(flow, entry.id);
    state.seen.addMany(
      stream,
      delivered.map((entry) => ({
        recordId: entry.id,
        updatedAt: entry.updatedAt,
        updatedMs: entry.updatedMs,
      })),
    );
  });
  return { fetched: page.items.length, delivered: delivered.length };
}
