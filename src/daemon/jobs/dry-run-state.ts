/**
 * A dry run works on a private copy of the state file in a temporary folder, removed afterwards: flows read the
 * cursors, ledgers and dead letters they would read for real, and whatever the run records (its run row included)
 * never reaches the real file. A missing state file stays missing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../../shared/clock.js';
import { openStateStore, type StateStore } from '../../state/index.js';

export interface ScratchState {
  readonly store: StateStore;
  dispose(): Promise<void>;
}

export async function openScratchState(stateFile: string, clock: Clock): Promise<ScratchState> {
  const dir = await mkdtemp(join(tmpdir(), 'supply-sync-dry-run-'));
  try {
    const copy = join(dir, 'state.db');
    const source = resolve(stateFile);
    if (existsSync(source)) {
      // SQLite's online backup: a consistent copy even while the daemon writes to the file.
      const db = new Database(source, { readonly: true, fileMustExist: true });
      try {
        await db.backup(copy);
      } finally {
        db.close();
      }
    }
    const store = openStateStore({ file: copy, clock, lock: false, synchronous: 'normal' });
    return {
      store,
      dispose: async () => {
        store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
