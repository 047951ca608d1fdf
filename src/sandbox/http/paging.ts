/**
 * Paging for every list endpoint of the sandbox: opaque cursors, limit validation, `updated_since` (strictly
 * after) and inclusive `from`/`to` date ranges.
 *
 * Why a cursor walk never skips or repeats a row version while rows change:
 * - Rows are ordered by (updated_at, id) and a cursor records where the last page ended, never an offset, so
 *   inserts and deletes before the cursor cannot shift later rows.
 * - A row changed during the walk gets a later updated_at, so it moves behind the cursor and is returned once more,
 *   as its new version; a row not yet read can only move later, so it is never jumped over.
 * - Ties: several rows may share a timestamp, and a row written later in that same millisecond may have a smaller
 *   id than the cursor's. A plain (updated_at, id) > cursor test would skip it. So the cursor also carries the ids
 *   already returned at its timestamp (compressed), and the next page holds every row after that timestamp plus
 *   every row at it whose id has not been returned yet. Only when more than MAX_TIED_IDS rows share one timestamp
 *   does the cursor fall back to the plain id comparison.
 * A version (id, updated_at) is therefore never returned twice, and every version that exists when the last page
 * is read has been returned. `MonotonicTimestamps` is available for writers that want no ties at all.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { ProblemError } from './types.js';
import { validationError } from './problem.js';

export const DEFAULT_LIMIT = 50;
export const MIN_LIMIT = 1;
export const MAX_LIMIT = 200;

/** Position of a row in the (sort value, id) order; the sort value is normally updated_at. */
export interface PagePosition {
  at: string;
  id: string;
}

export interface PageParams {
  limit: number;
  /** Where the previous page ended; `tiedIds` lists the ids already returned at `at` (null: compare by id). */
  after: (PagePosition & { tiedIds?: string[] | null }) | null;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** Cursors carry the ids returned at their timestamp up to this many; beyond it, ties fall back to id order. */
export const MAX_TIED_IDS = 2000;

export function encodeCursor(position: PagePosition, tiedIds: readonly string[] = []): string {
  const payload: Record<string, unknown> = { v: 1, at: position.at, id: position.id };
  if (tiedIds.length > 0 && tiedIds.length <= MAX_TIED_IDS) {
    payload['t'] = deflateRawSync(Buffer.from(tiedIds.join('\n'), 'utf8')).toString('base64');
  }
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** Decodes a cursor; anything this module did not produce gives 422 field cursor code invalid_format (G33). */
export function decodeCursor(raw: string): PagePosition & { tiedIds: string[] | null } {
  const invalid = validationError([
    { field: 'cursor', code: 'invalid_format', message: 'Unknown or damaged cursor.' },
  ]);
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw invalid;
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) throw invalid;
    const record = parsed as Record<string, unknown>;
    const { at, id, t } = record;
    if (record['v'] !== 1 || typeof at !== 'string' || typeof id !== 'string') throw invalid;
    if (t !== undefined && typeof t !== 'string') throw invalid;
    const tiedIds =
      t === undefined ? null : inflateRawSync(Buffer.from(t, 'base64')).toString('utf8').split('\n');
    return { at, id, tiedIds };
  } catch {
    throw invalid;
  }
}

/** `limit`: an integer from 1 to 200, default 50; anything else is 422 (field limit, code out_of_range). */
export function parseLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  if (!/^-?\d+$/.test(raw.trim())) {
    throw validationError([{ field: 'limit', code: 'invalid_format', message: 'limit must be an integer.' }]);
  }
  const value = Number(raw.trim());
  if (value < MIN_LIMIT || value > MAX_LIMIT) {
    throw validationError([
      {
        field: 'limit',
        code: 'out_of_range',
        message: `limit must be between ${MIN_LIMIT} and ${MAX_LIMIT}.`,
      },
    ]);
  }
  return value;
}

export function parsePageParams(query: URLSearchParams): PageParams {
  const cursor = query.get('cursor');
  return {
    limit: parseLimit(query.get('limit')),
    after: cursor === null || cursor === '' ? null : decodeCursor(cursor),
  };
}

function timeOf(value: string): number {
  return Date.parse(value);
}

function compareSortValues(a: string, b: string): number {
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (!Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders by sort value (as time when both parse as timestamps, else as strings), then by id. */
export function comparePositions(a: PagePosition, b: PagePosition): number {
  const bySortValue = compareSortValues(a.at, b.at);
  if (bySortValue !== 0) return bySortValue;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * One page of `items` (any order) by the position `positionOf` gives each item. Pass `query` (or parsed params);
 * filters such as updated_since or status are the caller's to apply first. This sorts every call: fine for small
 * collections; large ones page through a `PageIndex` (page-index.ts), which keeps this exact behaviour.
 */
export function paginate<T>(
  items: Iterable<T>,
  query: URLSearchParams | PageParams,
  positionOf: (item: T) => PagePosition,
): Page<T> {
  const params = query instanceof URLSearchParams ? parsePageParams(query) : query;
  const cursor = cursorOf(params);
  const keyed: KeyedItem<T>[] = [];
  for (const item of items) {
    const key = keyOf(positionOf(item));
    if (cursor.after === null || isAfter(key, cursor.after, cursor.tied)) keyed.push({ item, key });
  }
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  return pageOf(keyed.slice(0, params.limit), keyed.length > params.limit, cursor);
}

/** Where a page starts: the previous page's last key and the ids already returned at its timestamp. */
export interface CursorState {
  after: SortKey | null;
  /** null: rows at `after`'s timestamp are compared by id (no cursor yet, or the fallback beyond MAX_TIED_IDS). */
  tied: Set<string> | null;
}

export function cursorOf(params: PageParams): CursorState {
  return {
    after: params.after ? keyOf(params.after) : null,
    tied: params.after?.tiedIds ? new Set(params.after.tiedIds) : null,
  };
}

export interface KeyedItem<T> {
  item: T;
  key: SortKey;
}

/** Builds the reply for `pageRows` (already the first `limit` rows after the cursor, in order). */
export function pageOf<T>(pageRows: readonly KeyedItem<T>[], hasMore: boolean, cursor: CursorState): Page<T> {
  const { after, tied } = cursor;
  const last = pageRows[pageRows.length - 1];
  let nextCursor: string | null = null;
  if (hasMore && last) {
    const sameTime = (key: SortKey) => compareSortKeys(key, last.key) === 0;
    const continuesTie = after !== null && sameTime(after);
    // A cursor that already fell back to id order at this timestamp keeps doing so: a fresh list holding only
    // this page's ids would let the rows of earlier pages at the same timestamp come back.
    const fellBack = continuesTie && tied === null;
    const carried = continuesTie && tied ? [...tied] : [];
    const tiedIds = fellBack
      ? []
      : [...carried, ...pageRows.filter((row) => sameTime(row.key)).map((row) => row.key.id)];
    nextCursor = encodeCursor({ at: last.key.at, id: last.key.id }, tiedIds);
  }
  return { data: pageRows.map((row) => row.item), has_more: hasMore, next_cursor: nextCursor };
}

/** A position whose sort value is normalised once: timestamps to canonical UTC ISO strings, which sort as text. */
export interface SortKey {
  at: string;
  id: string;
  sortValue: string;
}

const CANONICAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function keyOf(position: PagePosition): SortKey {
  const { at, id } = position;
  if (CANONICAL_UTC.test(at)) return { at, id, sortValue: at };
  const time = timeOf(at);
  return { at, id, sortValue: Number.isNaN(time) ? at : new Date(time).toISOString() };
}

export function compareSortKeys(a: SortKey, b: SortKey): number {
  return a.sortValue < b.sortValue ? -1 : a.sortValue > b.sortValue ? 1 : 0;
}

export function compareKeys(a: SortKey, b: SortKey): number {
  const bySortValue = compareSortKeys(a, b);
  if (bySortValue !== 0) return bySortValue;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Whether a row at `key` belongs after the cursor: later time, or same time and not yet returned. */
export function isAfter(key: SortKey, after: SortKey, tied: Set<string> | null): boolean {
  const bySortValue = compareSortKeys(key, after);
  if (bySortValue !== 0) return bySortValue > 0;
  return tied === null ? key.id > after.id : !tied.has(key.id);
}

/** The usual case: resources with `id` and `updated_at`, filtered by `updated_since` when present. */
export function paginateByUpdatedAt<T extends { id: string; updated_at: string }>(
  items: Iterable<T>,
  query: URLSearchParams,
): Page<T> {
  const since = parseUpdatedSince(query);
  const params = parsePageParams(query);
  const filtered =
    since === null ? items : [...items].filter((item) => isUpdatedAfter(item.updated_at, since));
  return paginate(filtered, params, (item) => ({ at: item.updated_at, id: item.id }));
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `updated_since` as epoch milliseconds, or null when absent; must be an RFC 3339 timestamp with an offset. */
export function parseUpdatedSince(query: URLSearchParams): number | null {
  const raw = query.get('updated_since');
  if (raw === null || raw === '') return null;
  const ms = Date.parse(raw);
  if (!TIMESTAMP.test(raw) || Number.isNaN(ms)) {
    throw validationError([
      {
        field: 'updated_since',
        code: 'invalid_format',
        message: 'Expected an RFC 3339 timestamp with offset.',
      },
    ]);
  }
  return ms;
}

/** Strictly after, compared as instants (so offsets other than Z compare correctly). */
export function isUpdatedAfter(updatedAt: string, sinceMs: number | null): boolean {
  return sinceMs === null || Date.parse(updatedAt) > sinceMs;
}

export interface DateRange {
  from?: string;
  to?: string;
}

/** `from` and `to` as YYYY-MM-DD dates (both optional, inclusive); 422 invalid_format or out_of_range. */
export function parseDateRange(
  query: URLSearchParams,
  names: { from: string; to: string } = { from: 'from', to: 'to' },
): DateRange {
  const range: DateRange = {};
  for (const [key, name] of [['from', names.from] as const, ['to', names.to] as const]) {
    const raw = query.get(name);
    if (raw === null || raw === '') continue;
    if (!DATE.test(raw) || Number.isNaN(Date.parse(`${raw}T00:00:00Z`))) {
      throw validationError([
        { field: name, code: 'invalid_format', message: 'Expected a date (YYYY-MM-DD).' },
      ]);
    }
    range[key] = raw;
  }
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    throw validationError([
      { field: names.to, code: 'out_of_range', message: 'to must not be before from.' },
    ]);
  }
  return range;
}

/**
 * Inclusive date test. `value` may be a date or a timestamp; a timestamp is matched by its UTC calendar date.
 */
export function inDateRange(value: string, range: DateRange): boolean {
  const date = DATE.test(value) ? value : new Date(value).toISOString().slice(0, 10);
  if (range.from !== undefined && date < range.from) return false;
  if (range.to !== undefined && date > range.to) return false;
  return true;
}

/**
 * Issues strictly increasing RFC 3339 timestamps from a clock, so that two writes never share an updated_at and a
 * later write never sorts before an earlier one, even when the clock stands still (a manual test clock) or steps back.
 */
export class MonotonicTimestamps {
  private lastMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number) {}

  next(): string {
    const ms = Math.max(this.now(), this.lastMs + 1);
    this.lastMs = ms;
    return new Date(ms).toISOString();
  }

  /** Keeps issuing after restored data: never return a timestamp at or before `iso`. */
  observe(iso: string): void {
    const ms = Date.parse(iso);
    if (!Number.isNaN(ms) && ms > this.lastMs) this.lastMs = ms;
  }
}

export { ProblemError };
