import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decodeCursor,
  encodeCursor,
  paginate,
  paginateByUpdatedAt,
} from '../../../src/sandbox/http/paging.js';
import { ProblemError } from '../../../src/sandbox/http/types.js';

interface Row {
  id: string;
  updated_at: string;
}

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

function walk(rows: Row[], limit: number, betweenPages: (page: number) => void): string[] {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor !== null) query.set('cursor', cursor);
    const result = paginateByUpdatedAt(rows, query);
    for (const row of result.data) seen.push(`${row.id}@${row.updated_at}`);
    cursor = result.next_cursor;
    if (cursor === null) break;
    betweenPages(page);
  }
  return seen;
}

describe('sandbox paging', () => {
  it('pages to the end when more rows share one timestamp than a cursor can carry, each row once', () => {
    const rows: Row[] = Array.from({ length: 3000 }, (_, i) => ({
      id: `r${String(i).padStart(5, '0')}`,
      updated_at: at(0),
    }));
    const seen = walk(rows, 200, () => undefined);
    expect(seen).toHaveLength(3000);
    expect(new Set(seen).size).toBe(3000);
  });

  it('returns a row written later at the cursor timestamp with a smaller id (no tie skip)', () => {
    const rows: Row[] = ['b', 'c', 'd', 'e'].map((id) => ({ id, updated_at: at(0) }));
    const seen = walk(rows, 2, (page) => {
      if (page === 0) rows.push({ id: 'a', updated_at: at(0) });
    });
    expect(seen.sort()).toEqual(['a', 'b', 'c', 'd', 'e'].map((id) => `${id}@${at(0)}`));
  });

  it('never repeats a version and never misses the final version under concurrent writes with ties', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.tuple(fc.nat(40), fc.boolean(), fc.constantFrom(0, 0, 0, 1)), { maxLength: 60 }),
        (limit, writes) => {
          let clock = 0;
          const rows: Row[] = Array.from({ length: 20 }, (_, i) => ({
            id: `r${String(i * 2).padStart(3, '0')}`,
            updated_at: at(Math.floor(i / 10)),
          }));
          clock = 1; // writers stamp with the current clock, never earlier than existing rows
          let writeIndex = 0;
          const seen = walk(rows, limit, () => {
            for (let n = 0; n < 3 && writeIndex < writes.length; n++, writeIndex++) {
              const [target, insert, tick] = writes[writeIndex] ?? [0, false, 0];
              clock += tick;
              if (insert) {
                rows.push({
                  id: `r${String(target * 2 + 1).padStart(3, '0')}_${writeIndex}`,
                  updated_at: at(clock),
                });
              } else {
                const row = rows[target % rows.length];
                if (row)
                  row.updated_at = at(Math.max(clock, Date.parse(row.updated_at) - Date.UTC(2026, 0, 1) + 1));
              }
            }
          });
          expect(new Set(seen).size).toBe(seen.length);
          for (const row of rows) expect(seen).toContain(`${row.id}@${row.updated_at}`);
        },
      ),
      { numRuns: 300, seed: 20260105 },
    );
  });

  it('encodes opaque cursors and rejects damaged ones with 422 invalid_format', () => {
    const cursor = encodeCursor({ at: at(5), id: 'x' }, ['x', 'w']);
    expect(decodeCursor(cursor)).toEqual({ at: at(5), id: 'x', tiedIds: ['x', 'w'] });
    for (const bad of ['%%%', 'eyJ2IjoyfQ', cursor.slice(0, -3)]) {
      try {
        decodeCursor(bad);
        expect.unreachable(`cursor ${bad} accepted`);
      } catch (error) {
        expect(error).toBeInstanceOf(ProblemError);
        expect((error as ProblemError).extra.errors?.[0]).toMatchObject({
          field: 'cursor',
          code: 'invalid_format',
        });
      }
    }
  });

  it('orders non-timestamp sort values as strings, then by id', () => {
    const page = paginate(
      [
        { sku: 'B', id: '2' },
        { sku: 'A', id: '9' },
        { sku: 'A', id: '1' },
      ],
      new URLSearchParams({ limit: '2' }),
      (row) => ({ at: row.sku, id: row.id }),
    );
    expect(page.data.map((row) => row.id)).toEqual(['1', '9']);
    expect(page.has_more).toBe(true);
  });
});
