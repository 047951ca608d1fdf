/** Opening the state file from CLI commands: read-only for reports, locked for changes. */
import { existsSync } from 'node:fs';
import { openStateStore, type StateStore } from '../state/index.js';
import { systemClock } from '../shared/clock.js';
import { CliError } from './errors.js';

export function openStateForReading(path: string): StateStore {
  if (!existsSync(path)) {
    throw new CliError(
      `state file ${path} does not exist yet; it is created when the daemon first runs`,
      'state_missing',
    );
  }
  return openStateStore({ file: path, clock: systemClock, readOnly: true });
}

/** Takes the single-daemon lock: changing cursors or dead letters while the daemon runs is refused. */
export function openStateForChange(path: string): StateStore {
  if (!existsSync(path)) {
    throw new CliError(
      `state file ${path} does not exist yet; it is created when the daemon first runs`,
      'state_missing',
    );
  }
  return openStateStore({ file: path, clock: systemClock });
}

export async function withState<T>(
  open: () => StateStore,
  use: (state: StateStore) => T | Promise<T>,
): Promise<T> {
  const state = open();
  try {
    return await use(state);
  } finally {
    state.close();
  }
}
