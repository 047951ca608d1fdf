/** kill -9 at seeded random points with a SQL journal table as the target (see kill9-support.ts). */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteDriver } from '../../../src/kit/sql/index.js';
import { startHarness, type Harness } from './harness.js';
import { crashUntilConverged, exportedByUs, KILL_POINTS } from './kill9-support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('journal-export under kill -9', () => {
  it(`SQL target: ${KILL_POINTS} kill points, then every line in the table once and exported once`, async () => {
    h = await startHarness();
    const books = join(h.dir, 'books.db');
    const kills = await crashUntilConverged(h, 20261122, 'sql', books);
    expect(kills).toBeGreaterThanOrEqual(KILL_POINTS);
    const { ours } = await exportedByUs(h);
    const driver = new SqliteDriver(books);
    try {
      const { rows } = await driver.query('SELECT source FROM gl_journal', {});
      const written = rows.map((row) => String(row['source']));
      expect(written.length).toBe(new Set(written).size);
      expect(written.sort()).toEqual(ours.map((line) => line.id).sort());
    } finally {
      await driver.close();
    }
  }, 400_000);
});
