/**
 * A collection kept sorted by (sort value, id) for paging, so a page costs a binary search plus a scan of the rows
 * it returns (and of the rows its filter skips), instead of a filter and sort of the whole collection: a full walk
 * of n rows is O(n log n) overall, not O(n^2 log n).
 *
 * Pages are exactly those of `paginate` (paging.ts) on the same rows with the same filter, ties included: the start
 * is the first row the cursor's rule admits (after (at, id) in the fallback, or from the first row at the cursor's
 * timestamp when the cursor carries its tied ids), and every scanned row is still tested with that same rule.
 *
 * The index follows the collection in two ways. `writeAll` takes rows the caller knows it added or changed, in
 * O(log n) each: the cheap path for writers that report their rows. `sync` compares the whole collection and is for
 * everything else (the domain runs it when a write it was not told about may have happened): O(n) when nothing
 * moved and O(n + k log k) when k rows were added or re-stamped. Rows' other fields are read live, so filters see
 * the current values; a row whose position changed without either is noticed during the scan and triggers a sync.
 * `belongs` narrows the index to the rows it accepts (a partition, e.g. one status), re-tested on every write and
 * sync. Ids must be unique within the collection.
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
  type SortKey,
} from './paging.js';
import { SortedBlocks } from './sorted-blocks.js';

interface Entry<T> extends KeyedItem<T> {
  /** The sync that last saw this row in the collection. */
  seenIn: number;
}

export class PageIndex<T> {
  private readonly entries = new SortedBlocks<Entry<T>>((a, b) => compareKeys(a.key, b.key));
  private readonly byId = new Map<string, Entry<T>>();
  private generation = 0;

  /**
   * `source` yields the whole collection (any order); `atOf` and `idOf` give each row's sort value and id (plain
   * reads: they run for every row a page scans).
   */
  constructor(
    private readonly source: () => Iterable<T>,
    private readonly atOf: (item: T) => string,
    private readonly idOf: (item: T) => string,
    private readonly belongs: (item: T) => boolean = () => true,
  ) {}

  private keyOfItem(item: T): SortKey {
    return keyOf({ at: this.atOf(item), id: this.idOf(item) });
  }

  /** Brings the index up to date with the whole collection. */
  sync(): void {
    const items = this.source();
    this.generation += 1;
    const generation = this.generation;
    const fresh: Entry<T>[] = [];
    let count = 0;
    for (const item of items) {
      if (!this.belongs(item)) continue;
      count += 1;
      const id = this.idOf(item);
      const existing = this.byId.get(id);
      if (existing !== undefined && existing.item === item && existing.key.at === this.atOf(item)) {
        existing.seenIn = generation;
        continue;
      }
      const entry: Entry<T> = { item, key: this.keyOfItem(item), seenIn: generation };
      this.byId.set(id, entry);
      fresh.push(entry);
    }
    const removed = this.byId.size - count;
    if (fresh.length === 0 && removed === 0) return;
    if (removed > 0) {
      for (const [id, entry] of this.byId) if (entry.seenIn !== generation) this.byId.delete(id);
    }
    fresh.sort((a, b) => compareKeys(a.key, b.key));
    // A re-stamped row's old entry was not seen in this sync (its fresh entry replaced it), so it drops out here.
    const kept = this.entries.toArray().filter((entry) => entry.seenIn === generation);
    this.entries.reset(merge(kept, fresh));
  }

  /** Takes in rows that were added or changed (position or `belongs`); rows outside the index are dropped. */
  writeAll(items: readonly T[]): void {
    const latest = new Map<string, T>();
    for (const item of items) latest.set(this.idOf(item), item);
    const stale: Entry<T>[] = [];
    const fresh: Entry<T>[] = [];
    for (const [id, item] of latest) {
      const existing = this.byId.get(id);
      const belongs = this.belongs(item);
      if (existing !== undefined) {
        if (belongs && existing.item === item && existing.key.at === this.atOf(item)) continue;
        stale.push(existing);
        this.byId.delete(id);
      }
      if (!belongs) continue;
      const entry: Entry<T> = { item, key: this.keyOfItem(item), seenIn: this.generation };
      this.byId.set(id, entry);
      fresh.push(entry);
    }
    this.entries.removeAll(stale);
    for (const entry of fresh) this.entries.insert(entry);
  }

  get size(): number {
    return this.entries.size;
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
    const start = this.entries.seek((entry) => {
      // With tied ids, rows at the cursor's timestamp not yet returned may have any id: start at its first row.
      if (
        after !== null &&
        (tied === null ? compareKeys(entry.key, after) <= 0 : compareTimes(entry.key, after) < 0)
      )
        return true;
      return startAt !== null && compareTimes(entry.key, startAt) <= 0;
    });
    const pageRows: Entry<T>[] = [];
    let hasMore = false;
    let moved = false;
    this.entries.forEachFrom(start, (entry) => {
      if (this.atOf(entry.item) !== entry.key.at) {
        moved = true;
        return false;
      }
      if (after !== null && !isAfter(entry.key, after, tied)) return true;
      if (!matches(entry.item)) return true;
      if (pageRows.length === params.limit) {
        hasMore = true;
        return false;
      }
      pageRows.push(entry);
      return true;
    });
    if (moved) return 'moved';
    return pageOf(pageRows, hasMore, cursor);
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
