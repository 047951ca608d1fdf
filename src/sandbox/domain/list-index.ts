/**
 * Sorted page indexes over the domain's large collections (orders, documents, journal lines, expenses), so that a
 * list request costs about its page, not the collection.
 *
 * Freshness: every write to the domain goes through a mutating route or a control-plane action, and index.ts counts
 * those calls (`noteMutation`). A list request re-syncs an index (a pass over the whole collection) only when that
 * count moved since its last sync. The few writers that run at scale (marking lines exported, bulk approvals)
 * instead report each row they add or change (`noteRowsWritten`), which updates the indexes in place and leaves the
 * count alone; index.ts lists them, and counts a mutation when one of them fails part way.
 * Indexes are keyed by the collection object, so reset and restore (which replace the state) start fresh ones.
 *
 * A collection has one index over all its rows, plus one per partition a request asked for (the rows whose `field`
 * equals a value, e.g. journal lines in one status), so a walk of one status never scans the rows of the others.
 */
import { PageIndex } from '../http/page-index.js';
import { keyOf, parseUpdatedSince, type Page, type SortKey } from '../http/paging.js';
import { valuesOf, type DomainEnv } from './env.js';
import type { DomainState } from './state.js';

type Row = { id: string; updated_at: string };

/** The rows of a collection whose `field` equals `value`. */
export interface Partition<T> {
  field: keyof T & string;
  value: string;
}

interface Tracked {
  index: PageIndex<unknown>;
  syncedAt: number;
}

const mutationCounts = new WeakMap<DomainState, number>();
/** Per collection: its indexes by partition name ('' for the whole collection). */
const indexes = new WeakMap<object, Map<string, Tracked>>();

/** Records that the domain state may have changed (called around every write path). */
export function noteMutation(env: DomainEnv): void {
  mutationCounts.set(env.state, (mutationCounts.get(env.state) ?? 0) + 1);
}

/**
 * Takes in rows of `collection` that were just added or changed, for writers that report their writes instead of
 * counting a mutation. Indexes that are behind anyway (a sync is due) are left to that sync.
 */
export function noteRowsWritten<T extends Row>(
  env: DomainEnv,
  collection: Readonly<Record<string, T>>,
  rows: readonly T[],
): void {
  const tracked = indexes.get(collection);
  if (tracked === undefined) return;
  const count = mutationCounts.get(env.state) ?? 0;
  for (const { index, syncedAt } of tracked.values()) {
    if (syncedAt !== count) continue;
    (index as PageIndex<T>).writeAll(rows);
  }
}

function indexFor<T extends Row>(
  env: DomainEnv,
  collection: Readonly<Record<string, T>>,
  partition: Partition<T> | null,
): PageIndex<T> {
  const count = mutationCounts.get(env.state) ?? 0;
  let byName = indexes.get(collection);
  if (byName === undefined) {
    byName = new Map();
    indexes.set(collection, byName);
  }
  const name = partition === null ? '' : `${partition.field}=${partition.value}`;
  let tracked = byName.get(name);
  if (tracked === undefined) {
    const belongs =
      partition === null ? undefined : (row: T) => (row[partition.field] as unknown) === partition.value;
    const index = new PageIndex<T>(
      () => valuesOf(collection),
      (row) => row.updated_at,
      (row) => row.id,
      belongs,
    );
    tracked = { index: index as PageIndex<unknown>, syncedAt: Number.NaN };
    byName.set(name, tracked);
  }
  const index = tracked.index as PageIndex<T>;
  if (tracked.syncedAt !== count) {
    index.sync();
    tracked.syncedAt = count;
  }
  return index;
}

/**
 * A page of `collection` by (updated_at, id) with `updated_since` (strictly after) and the cursor of `query`,
 * holding the rows `matches` accepts: the same page `paginateByUpdatedAt` gives for the filtered rows. With a
 * `partition`, only its rows are scanned; `matches` must still test the partition's condition itself.
 */
export function indexedPage<T extends Row>(
  env: DomainEnv,
  collection: Readonly<Record<string, T>>,
  query: URLSearchParams,
  matches: (row: T) => boolean,
  partition: Partition<T> | null = null,
): Page<T> {
  const since = parseUpdatedSince(query);
  const index = indexFor(env, collection, partition);
  if (since === null) return index.page(query, matches);
  const bound: SortKey = keyOf({ at: new Date(since).toISOString(), id: '' });
  return index.page(query, (row) => Date.parse(row.updated_at) > since && matches(row), bound);
}
