/**
 * Sorted page indexes over the domain's large collections (orders, documents, journal lines, expenses), so that a
 * list request costs about its page, not the collection.
 *
 * Freshness: every write to the domain goes through a mutating route or a control-plane action, and index.ts counts
 * those calls (`noteMutation`). A list request re-syncs an index only when that count moved since its last sync.
 * Indexes are keyed by the collection object, so reset and restore (which replace the state) start fresh ones.
 */
import { PageIndex } from '../http/page-index.js';
import { keyOf, parseUpdatedSince, type Page, type SortKey } from '../http/paging.js';
import type { DomainEnv } from './env.js';
import type { DomainState } from './state.js';

interface Tracked {
  index: PageIndex<unknown>;
  syncedAt: number;
}

const mutationCounts = new WeakMap<DomainState, number>();
const indexes = new WeakMap<object, Tracked>();

/** Records that the domain state may have changed (called around every write path). */
export function noteMutation(env: DomainEnv): void {
  mutationCounts.set(env.state, (mutationCounts.get(env.state) ?? 0) + 1);
}

type Row = { id: string; updated_at: string };

function indexFor<T extends Row>(env: DomainEnv, collection: Readonly<Record<string, T>>): PageIndex<T> {
  const count = mutationCounts.get(env.state) ?? 0;
  let tracked = indexes.get(collection);
  if (tracked === undefined) {
    const index = new PageIndex<T>(
      () => Object.values(collection),
      (row) => ({ at: row.updated_at, id: row.id }),
    );
    tracked = { index: index as PageIndex<unknown>, syncedAt: Number.NaN };
    indexes.set(collection, tracked);
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
 * holding the rows `matches` accepts: the same page `paginateByUpdatedAt` gives for the filtered rows.
 */
export function indexedPage<T extends Row>(
  env: DomainEnv,
  collection: Readonly<Record<string, T>>,
  query: URLSearchParams,
  matches: (row: T) => boolean,
): Page<T> {
  const since = parseUpdatedSince(query);
  const index = indexFor(env, collection);
  if (since === null) return index.page(query, matches);
  const bound: SortKey = keyOf({ at: new Date(since).toISOString(), id: '' });
  return index.page(query, (row) => Date.parse(row.updated_at) > since && matches(row), bound);
}
