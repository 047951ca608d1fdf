/**
 * A collection kept sorted by (sort value, id) for paging, so a page costs a binary search plus a scan of the rows
 * it returns (and of the rows its filter skips), instead of a filter and sort of the whole collection: a full walk
 * of n rows is O(n log n) overall, not O(n^2 log n).
 *
 * Pages are exactly those of `paginate` (paging.ts) on the same rows with the same filter, ties included: the start
 * is the first row the cursor's rule admits (after (at, id) in the fallback, or from the first row at the cursor's
 * timestamp when the cursor carries its tied ids), and every scanned row is still tested with that same rule.
 *
 * The index follows the collection through `sync`, which the caller runs after anything may have changed (the
 * domain does so when its mutation counter moved). A sync is O(n) when nothing moved and
 * O(n + k log k) when k rows were added or re-stamped. Rows' other fields are read live, so filters see the current
 * values; a row whose position changed without a sync is noticed during the scan and triggers one.
 * Ids must be unique within the collection.
 */
import {
  compareKeys,
  cursorOf,
  isAfter,
  keyOf,
  pageOf,
  parsePageParams,
  type KeyedItem,
  type Page,
  type PageParams,
  type PagePosition,
  type SortKey,
} from './paging.js';

interface Entry<T> extends KeyedItem<T> {
  /** The sync that last saw this row in the collection. */
  seenIn: number;
}

export class PageIndex<T> {
  private entries: Entry<T>[] = [];
  private readonly byId = new Map<string, Entry<T>>();
  private generation = 0;

  /** `source` yields the whole collection (any order); `positionOf` gives each row's (sort value, id). */
  constructor(
    private readonly source: () => Iterable<T>,
    private readonly positionOf: (item: T) => PagePosition,
  ) {}

  /** Brings the index up to date with the collection. */
  sync(): void {
    const items = this.source();
    this.generation += 1;
    const generation = this.generation;
    const fresh: Entry<T>[] = [];
    let count = 0;
    for (const item of items) {
      count += 1;
      const position = this.positionOf(item);
      const existing = this.byId.get(position.id);
      if (existing !== undefined && existing.item === item && existing.key.at === position.at) {
        existing.seenIn = generation;
        continue;
      }
      const entry: Entry<T> = { item, key: keyOf(position), seenIn: generation };
      this.byId.set(position.id, entry);
      fresh.push(entry);
    }
    const removed = this.byId.size - count;
    if (fresh.length === 0 && removed === 0) return;
    if (removed > 0) {
      for (const [id, entry] of this.byId) if (entry.seenIn !== generation) this.byId.delete(id);
    }
    fresh.sort((a, b) => compareKeys(a.key, b.key));
    // A re-stamped row's old entry was not seen in this sync (its fresh entry replaced it), so it drops out here.
    const kept = this.entries.filter((entry) => entry.seenIn === generation);
    this.entries = merge(kept, fresh);
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * One page after the cursor of `query`, holding only rows for which `matches` is true. `startAt` (optional)
   * skips every row whose sort key is not after it: the bound of an `updated_since` filter, which `matches` must
   * still apply itself.
   */
  page(
    query: URLSearchParams | PageParams,
    matches: (item: T) => boolean,
    startAt: SortKey | null = null,
  ): Page<T> {
    const params = query instanceof URLSearchParams ? parsePageParams(query) : query;
    const found = this.scan(params, matches, startAt);
    if (found !== 'moved') return found;
    this.sync();
    const again = this.scan(params, matches, startAt);
    if (again === 'moved') throw new Error('page index: a row moved during the scan');
    return again;
  }

  private scan(
    params: PageParams,
    matches: (item: T) => boolean,
    startAt: SortKey | null,
  ): Page<T> | 'moved' {
    const cursor = cursorOf(params);
    const { after, tied } = cursor;
    let start = 0;
    if (after !== null) {
      // With tied ids, rows at the cursor's timestamp not yet returned may have any id: start at its first row.
      start = tied === null ? this.firstAfter(after, true) : this.firstAfter(after, false);
    }
    if (startAt !== null) start = Math.max(start, this.firstAfter(startAt, false, true));
    const pageRows: Entry<T>[] = [];
    let hasMore = false;
    for (let index = start; index < this.entries.length; index++) {
      const entry = this.entries[index];
      if (entry === undefined) break;
      if (this.positionOf(entry.item).at !== entry.key.at) return 'moved';
      if (after !== null && !isAfter(entry.key, after, tied)) continue;
      if (!matches(entry.item)) continue;
      if (pageRows.length === params.limit) {
        hasMore = true;
        break;
      }
      pageRows.push(entry);
    }
    return pageOf(pageRows, hasMore, cursor);
  }

  /**
   * Index of the first entry past `bound`: by (sort value, id) when `byId`, else the first at or after its sort
   * value (or strictly after it, with `strictTime`).
   */
  private firstAfter(bound: SortKey, byId: boolean, strictTime = false): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = this.entries[middle];
      if (entry === undefined) break;
      const order = byId ? compareKeys(entry.key, bound) : compareTimes(entry.key, bound);
      const before = byId || strictTime ? order <= 0 : order < 0;
      if (before) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

function compareTimes(a: SortKey, b: SortKey): number {
  return a.sortValue < b.sortValue ? -1 : a.sortValue > b.sortValue ? 1 : 0;
}

function merge<T>(a: Entry<T>[], b: Entry<T>[]): Entry<T>[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: Entry<T>[] = new Array<Entry<T>>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    const left = a[i] as Entry<T>;
    const right = b[j] as Entry<T>;
    if (compareKeys(left.key, right.key) <= 0) {
      out[k++] = left;
      i++;
    } else {
      out[k++] = right;
      j++;
    }
  }
  while (i < a.length) out[k++] = a[i++] as Entry<T>;
  while (j < b.length) out[k++] = b[j++] as Entry<T>;
  return out;
}
