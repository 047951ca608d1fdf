import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore, type SqliteStateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from './support.js';

// What the stores do on every backend is in shared-state-suite.ts; this file keeps what only SQLite has.
let tmp: TempDir;
let clock: FakeClock;
let state: SqliteStateStore;

beforeEach(() => {
  tmp = tempDir();
  clock = new FakeClock();
  state = openStateStore({ file: tmp.file('s.db'), clock });
});
afterEach(() => {
  state.close();
  tmp.remove();
});

describe('run start without its own sync', () => {
  it('restores the connection to FULL after the start row, also inside a transaction', () => {
    const FULL = 2;
    expect(state.db.pragma('synchronous', { simple: true })).toBe(FULL);
    const id = state.runs.start('orders', 'webhook');
    expect(state.db.pragma('synchronous', { simple: true })).toBe(FULL);
    const inside = state.transaction(() => state.runs.start('orders', 'cli'));
    expect(state.db.pragma('synchronous', { simple: true })).toBe(FULL);
    expect(state.runs.recent('orders').map((run) => run.id)).toEqual([inside, id]);
  });
});
