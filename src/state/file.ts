import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export const DEFAULT_STATE_FILE = 'state/supply-sync.db';

/**
 * Creates the state file's folder (0700) and the file itself (0600) before SQLite opens it, so the file never
 * exists with wider permissions. SQLite gives the -wal and -shm files the database file's mode. An existing file
 * with a wider mode is tightened: it holds webhook secrets.
 */
export function prepareStateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) {
    try {
      closeSync(openSync(file, 'wx', 0o600));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  if (process.platform !== 'win32') chmodSync(file, 0o600);
}
