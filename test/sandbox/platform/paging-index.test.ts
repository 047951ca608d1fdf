import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  encodeCursor,
  isUpdatedAfter,
  MAX_TIED_IDS,
  parsePageParams,
  parseUpdatedSince,
  type Page,
  type PagePosition,
} from '../../../src/sandbox/http/paging.js';
import { PageIndex } from '../../../src/sandbox/http/page-index.js';
import { indexedPage, noteMutation, noteRowsWritten } from '../../../src/sandbox/domain/list-index.js';
import type { DomainEnv } from '../../../src/sandbox/domain/env.js';
import { emptyState } from '../../../src/sandbox/domain/state.js';
import type { DomainServices } from '../../../src/sandbox/http/types.js';

/**
 * The reference: the original paging algorithm, which filters and sorts the whole collection on every page. The
 * index must give exactly its pages (same rows, same cursors, same has_more) on any collection and any mutations.
 */
interface RefKey {
  at: string;
  id: string;
  sortValue: string;
}
function refKeyOf({ at, id }: PagePosition): RefKey {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at)) return { at, id, sortValue: at };
  const time = Date.parse(at);
  return { at, id, sortValue: Number.isNaN(time) ? at : new Date(time).toISOString() };
}
const refCompareTime = (a: RefKey, b: RefKey) =>
  a.sortValue < b.sortValue ? -1 : a.sortValue > b.sortValue ? 1 : 0;
const refCompare = (a: RefKey, b: RefKey) => refCompareTime(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
function referencePaginate<T>(
  items: Iterable<T>,
  query: URLSearchParams,
  positionOf: (item: T) => PagePosition,
): Page<T> {
  const params = parsePageParams(query);
  const after = params.after ? refKeyOf(params.after) : null;
  const tied = params.after?.tiedIds ? new Set(params.after.tiedIds) : null;
  const isAfter = (key: RefKey, bound: RefKey) => {
    const byTime = refCompareTime(key, bound);
    if (byTime !== 0) return byTime > 0;
    return tied === null ? key.id > bound.id : !tied.has(key.id);
  };
  const keyed: { item: T; key: RefKey }[] = [];
  for (const item of items) {
    const key = refKeyOf(positionOf(item));
    if (after === null || isAfter(key, after)) keyed.push({ item, key });
  }
  keyed.sort((a, b) => refCompare(a.key, b.key));
  const pageRows = keyed.slice(0, params.limit);
  const hasMore = keyed.length > params.limit;
  const last = pageRows[pageRows.length - 1];
  let nextCursor: string | null = null;
  if (hasMore && last) {
    const sameTime = (key: RefKey) => refCompareTime(key, last.key) === 0;
    const continuesTie = after !== null && sameTime(after);
    const fellBack = continuesTie && tied === null;
    const carried = continuesTie && tied ? [...tied] : [];
    const tiedIds = fellBack
      ? []
      : [...carried, ...pageRows.filter((row) => sameTime(row.key)).map((row) => row.key.id)];
    nextCursor = encodeCursor({ at: last.key.at, id: last.key.id }, tiedIds);
  }
  return { data: pageRows.map((row) => row.item), has_more: hasMore, next_cursor: nextCursor };
}
function referenceByUpdatedAt<T extends Row>(
  items: T[],
  query: URLSearchParams,
  matches: (row: T) => boolean,
) {
  const since = parseUpdatedSince(query);
  const filtered = items.filter((row) => matches(row) && isUpdatedAfter(row.updated_at, since));
  return referencePaginate(filtered, query, (row) => ({ at: row.updated_at, id: row.id }));
}

interface Row {
  id: string;
  updated_at: string;
  status: 'a' | 'b';
}

const BASE = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(BASE + ms).toISOString();
const summary = (page: Page<Row>) => ({
  data: page.data.map((row) => `${row.id}@${row.updated_at}/${row.status}`),
  has_more: page.has_more,
  next_cursor: page.next_cursor,
});

function testEnv(): DomainEnv {
  return { state: emptyState(1), services: {} as DomainServices };
}

type Mutation =
  | { kind: 'insert'; slot: number; tick: number }
  | { kind: 'restamp'; target: number; tick: number }
  | { kind: 'status'; target: number }
  | { kind: 'delete'; target: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), slot: fc.nat(60), tick: fc.constantFrom(0, 0, 1) }),
  fc.record({ kind: fc.constant('restamp' as const), target: fc.nat(200), tick: fc.constantFrom(0, 0, 1) }),
  fc.record({ kind: fc.constant('status' as const), target: fc.nat(200) }),
  fc.record({ kind: fc.constant('delete' as const), target: fc.nat(200) }),
);

describe('sandbox page index', () => {
  it('gives the reference pages on random collections with ties, filters and mutations between pages', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(3), fc.boolean()), { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom<'a' | 'b' | null>(null, 'a', 'b'),
        fc.option(fc.nat(4), { nil: null }),
        fc.array(fc.array(mutationArb, { maxLength: 3 }), { maxLength: 30 }),
        (seedRows, limit, status, sinceMs, mutationsPerPage) => {
          const collection: Record<string, Row> = {};
          seedRows.forEach(([time, isA], i) => {
            const id = `r${String(i * 2).padStart(3, '0')}`;
            collection[id] = { id, updated_at: at(time), status: isA ? 'a' : 'b' };
          });
          let clock = 3;
          const env = testEnv();
          const matches = (row: Row) => status === null || row.status === status;
          let cursor: string | null = null;
          for (let page = 0; page < 200; page++) {
            const query = new URLSearchParams({ limit: String(limit) });
            if (sinceMs !== null) query.set('updated_since', at(sinceMs));
            if (cursor !== null) query.set('cursor', cursor);
            const expected = referenceByUpdatedAt(Object.values(collection), query, matches);
            const actual = indexedPage(env, collection, query, matches);
            expect(summary(actual)).toEqual(summary(expected));
            cursor = actual.next_cursor;
            if (cursor === null) break;
            const rows = () => Object.values(collection);
            for (const mutation of mutationsPerPage[page] ?? []) {
              if (mutation.kind === 'insert') {
                clock += mutation.tick;
                const id = `r${String(mutation.slot * 2 + 1).padStart(3, '0')}_${page}`;
                collection[id] = { id, updated_at: at(clock), status: mutation.slot % 2 ? 'a' : 'b' };
              } else {
                const row = rows()[mutation.target % Math.max(1, rows().length)];
                if (row === undefined) continue;
                if (mutation.kind === 'delete') delete collection[row.id];
                else if (mutation.kind === 'status') row.status = row.status === 'a' ? 'b' : 'a';
                else {
                  clock += mutation.tick;
                  row.updated_at = at(Math.max(clock, Date.parse(row.updated_at) - BASE + 1));
                }
              }
            }
            noteMutation(env);
          }
        },
      ),
      { numRuns: 400, seed: 20261122 },
    );
  });

  it('gives the reference pages when writers report their rows, scanning one status partition or all rows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(3), fc.boolean()), { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom<'a' | 'b' | null>(null, 'a', 'b'),
        fc.boolean(),
        fc.option(fc.nat(4), { nil: null }),
        fc.array(fc.array(mutationArb, { maxLength: 3 }), { maxLength: 30 }),
        (seedRows, limit, status, otherReader, sinceMs, mutationsPerPage) => {
          const collection: Record<string, Row> = {};
          seedRows.forEach(([time, isA], i) => {
            const id = `r${String(i * 2).padStart(3, '0')}`;
            collection[id] = { id, updated_at: at(time), status: isA ? 'a' : 'b' };
          });
          let clock = 3;
          const env = testEnv();
          const matches = (row: Row) => status === null || row.status === status;
          const partition = status === null ? null : { field: 'status' as const, value: status };
          let cursor: string | null = null;
          for (let page = 0; page < 200; page++) {
            const query = new URLSearchParams({ limit: String(limit) });
            if (sinceMs !== null) query.set('updated_since', at(sinceMs));
            if (cursor !== null) query.set('cursor', cursor);
            const expected = referenceByUpdatedAt(Object.values(collection), query, matches);
            const actual = indexedPage(env, collection, query, matches, partition);
            expect(summary(actual)).toEqual(summary(expected));
            // Another reader keeps the other indexes of the collection in use, so reported writes reach them too.
            if (otherReader) indexedPage(env, collection, new URLSearchParams(), () => true);
            cursor = actual.next_cursor;
            if (cursor === null) break;
            const rows = () => Object.values(collection);
            // Reported in one batch per page, a row possibly more than once.
            const written: Row[] = [];
            for (const mutation of mutationsPerPage[page] ?? []) {
              if (mutation.kind === 'insert') {
                clock += mutation.tick;
                const id = `r${String(mutation.slot * 2 + 1).padStart(3, '0')}_${page}`;
                const row: Row = { id, updated_at: at(clock), status: mutation.slot % 2 ? 'a' : 'b' };
                collection[id] = row;
                written.push(row);
                continue;
              }
              const row = rows()[mutation.target % Math.max(1, rows().length)];
              if (row === undefined) continue;
              if (mutation.kind === 'delete') {
                // Removals are never reported: they count as a mutation.
                delete collection[row.id];
                noteMutation(env);
                continue;
              }
              if (mutation.kind === 'status') row.status = row.status === 'a' ? 'b' : 'a';
              else {
                clock += mutation.tick;
                row.updated_at = at(Math.max(clock, Date.parse(row.updated_at) - BASE + 1));
              }
              written.push(row);
            }
            noteRowsWritten(env, collection, written);
          }
        },
      ),
      { numRuns: 400, seed: 20261123 },
    );
  });

  it('gives the reference pages past the tied-id limit of a cursor, with rows added at that timestamp mid-walk', () => {
    const tiedCount = MAX_TIED_IDS + 1500;
    const rows: Row[] = Array.from({ length: tiedCount }, (_, i) => ({
      id: `t${String(i * 2 + 1).padStart(5, '0')}`,
      updated_at: at(5),
      status: i % 3 === 0 ? 'b' : 'a',
    }));
    for (let i = 0; i < 300; i++) rows.push({ id: `u${i}`, updated_at: at(6 + (i % 4)), status: 'a' });
    const index = new PageIndex(
      () => rows,
      (row) => row.updated_at,
      (row) => row.id,
    );
    index.sync();
    const matches = (row: Row) => row.status === 'a';
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const query = new URLSearchParams({ limit: '200' });
      if (cursor !== null) query.set('cursor', cursor);
      const expected = referencePaginate(rows.filter(matches), query, (row) => ({
        at: row.updated_at,
        id: row.id,
      }));
      const actual = index.page(query, matches);
      expect(summary(actual)).toEqual(summary(expected));
      seen.push(...actual.data.map((row) => row.id));
      cursor = actual.next_cursor;
      if (cursor === null) break;
      if (page % 4 === 1) {
        // A later write in the same millisecond, with an id below the cursor's.
        rows.push({ id: `t${String(page * 2).padStart(5, '0')}`, updated_at: at(5), status: 'a' });
        index.sync();
      }
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('notices a row re-stamped without a sync when its scan meets it, and pages as if synced', () => {
    const rows: Row[] = ['a', 'b', 'c', 'd'].map((id, i) => ({ id, updated_at: at(i), status: 'a' }));
    const index = new PageIndex(
      () => rows,
      (row) => row.updated_at,
      (row) => row.id,
    );
    index.sync();
    const first = index.page(new URLSearchParams({ limit: '2' }), () => true);
    expect(first.data.map((row) => row.id)).toEqual(['a', 'b']);
    const moved = rows[2];
    if (moved === undefined) throw new Error('fixture');
    moved.updated_at = at(10);
    const query = new URLSearchParams({ limit: '2', cursor: first.next_cursor ?? '' });
    expect(index.page(query, () => true).data.map((row) => row.id)).toEqual(['d', 'c']);
  });
});
