/**
 * One paged resource into its mirror table through the engine's incremental pull: pages are fetched with the
 * stream's cursor, rows upserted by id (idempotent, so a crash before the checkpoint only repeats upserts), and
 * quarantined API items dead-lettered with their reason while the rest of the page syncs.
 */
import type { ApiClient } from '../../client/index.js';
import type { MirrorSink } from '../../connector-contract/index.js';
import { pullIncremental, type PullResult, type RecordFailure, type RunBudget } from '../../engine/index.js';
import type { Clock } from '../../shared/clock.js';
import type { StateStore } from '../../state/index.js';
import type { MirrorOptions } from './options.js';
import type { ApiRecord, PagedResource } from './resources.js';
import type { MirrorTable } from './tables.js';

/** An item of a page: a parsed record, or an item the client quarantined (kept with the reason). */
export interface PulledItem {
  readonly record: ApiRecord;
  readonly quarantine: string | null;
}

const DAY_MS = 86_400_000;

export function streamName(job: string, resource: { path: string }): string {
  return `${job}:${resource.path}`;
}

/** Dead letters of one resource live under their own flow name, so a replay goes back to the same stream. */
export function deadLetterFlow(job: string, resource: { name: string }): string {
  return `${job}:${resource.name}`;
}

function readIdentity(item: PulledItem): { id: string; updatedAt: string } {
  const id = item.record['id'];
  const updatedAt = item.record['updated_at'];
  if (typeof id !== 'string' || id === '' || typeof updatedAt !== 'string') {
    throw new Error(
      item.quarantine === null
        ? 'record without id or updated_at'
        : `quarantined by the API client: ${item.quarantine}`,
    );
  }
  return { id, updatedAt };
}

/** `from` for lists without updated_since: the pass's start date minus the look-back window. */
function windowStart(updatedSince: string | null, windowDays: number): string | null {
  if (updatedSince === null) return null;
  return new Date(Date.parse(updatedSince) - windowDays * DAY_MS).toISOString().slice(0, 10);
}

export interface StreamInput {
  job: string;
  api: ApiClient;
  sink: MirrorSink;
  state: StateStore;
  clock: Clock;
  budget: RunBudget;
  options: MirrorOptions;
  resource: PagedResource;
  table: MirrorTable;
}

export async function pullResource(input: StreamInput): Promise<PullResult & { written: number }> {
  const { resource, table, sink, options } = input;
  const stream = streamName(input.job, resource);
  const versions = stream;
  let written = 0;
  // Lists read whole or by date window return rows the seen-set has already pruned: remember each row's
  // updated_at so unchanged rows are not rewritten on every run.
  const rereads = resource.mode !== 'incremental';

  const result = await pullIncremental<PulledItem>({
    state: input.state,
    stream,
    flow: deadLetterFlow(input.job, resource),
    overlapMs: options.overlap,
    budget: input.budget,
    async fetchPage(request, signal) {
      const page = await resource.fetchPage(input.api, {
        cursor: request.cursor,
        updatedSince: resource.mode === 'incremental' ? request.updatedSince : null,
        fromDate: resource.mode === 'window' ? windowStart(request.updatedSince, options.window_days) : null,
        limit: options.page_size,
        signal,
      });
      const items: PulledItem[] = page.items.map((record) => ({ record, quarantine: null }));
      for (const bad of page.quarantined) {
        const raw = typeof bad.raw === 'object' && bad.raw !== null ? (bad.raw as ApiRecord) : {};
        items.push({ record: raw, quarantine: bad.reason });
      }
      return { items, nextCursor: page.nextCursor, hasMore: page.hasMore };
    },
    identify: readIdentity,
    async deliver(items) {
      const failures: RecordFailure<PulledItem>[] = [];
      const syncedAt = new Date(input.clock.now()).toISOString();
      const rows = [];
      for (const item of items) {
        if (item.quarantine !== null) {
          failures.push({ item, reason: `quarantined by the API client: ${item.quarantine}` });
          continue;
        }
        const { id, updatedAt } = readIdentity(item);
        if (rereads && input.state.hashes.get(versions, id) === updatedAt) continue;
        rows.push(table.toRow(item.record, id, syncedAt));
      }
      written += await sink.upsertRows(table.spec, rows);
      return failures;
    },
    ...(rereads
      ? {
          stageRecord(item: PulledItem, state: StateStore) {
            const { id, updatedAt } = readIdentity(item);
            state.hashes.setMany(versions, [[id, updatedAt]]);
          },
        }
      : {}),
  });
  return { ...result, written };
}
