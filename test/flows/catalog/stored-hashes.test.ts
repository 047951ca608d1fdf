/** The catalog's fast read of stored hashes agrees with the state store's own read, separators included. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadStoredHashes } from '../../../src/flows/catalog/stored-hashes.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';

let state: StateStore | undefined;
let dir: string | undefined;
afterEach(async () => {
  state?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  state = undefined;
  dir = undefined;
});

async function open(): Promise<StateStore> {
  dir = await mkdtemp(join(tmpdir(), 'stored-hashes-'));
  state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
  return state;
}

describe('loadStoredHashes', () => {
  it('returns what hashes.all returns, for plain keys, price keys and an empty flow', async () => {
    const store = await open();
    const entries: [string, string][] = Array.from({ length: 1200 }, (_, i) => [`SKU-${i}`, `h${i}`]);
    entries.push(['pl_standard\u001fVEG-0001\u001f', '12.50\u001f2026-11-01']);
    store.hashes.setMany('job:products', entries);
    store.hashes.setMany('other:products', [['SKU-1', 'not mine']]);
    expect(loadStoredHashes(store, 'job:products')).toEqual(store.hashes.all('job:products'));
    expect(loadStoredHashes(store, 'job:products').size).toBe(1201);
    expect(loadStoredHashes(store, 'nothing-here')).toEqual(new Map());
  });

  it('falls back to hashes.all when a key or hash holds one of its separators', async () => {
    const store = await open();
    store.hashes.setMany('job:products', [
      ['A\u001eB', 'x'],
      ['C', 'y\u001dz'],
      ['D', 'w'],
    ]);
    const loaded = loadStoredHashes(store, 'job:products');
    expect(loaded).toEqual(
      new Map([
        ['A\u001eB', 'x'],
        ['C', 'y\u001dz'],
        ['D', 'w'],
      ]),
    );
  });
});
