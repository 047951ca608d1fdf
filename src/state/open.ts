import type { Clock } from '../shared/clock.js';
import { openPgStateStore } from './postgres/store.js';
import type { StateStore } from './state-store.js';
import type { LockHolderKind } from './lock.js';
import { openStateStore } from './store.js';

/** The `state` section of the config: a SQLite file by default, a PostgreSQL database when `url` is set. */
export interface StateLocation {
  readonly path: string;
  readonly url?: string | undefined;
}

/**
 * Opens the state the config names: the PostgreSQL database at `state.url` when set (migrated, no file lock:
 * the leadership lease keeps it to one writer), else the SQLite file at `state.path` (migrated, locked).
 */
export function openConfiguredState(
  location: StateLocation,
  clock: Clock,
  options: {
    readOnly?: boolean;
    idleInTransactionTimeoutMs?: number;
    statementTimeoutMs?: number;
    lockTimeoutMs?: number;
    /** Who takes a state file's lock (see OpenStateOptions.holder). */
    holder?: LockHolderKind;
  } = {},
): StateStore {
  if (location.url !== undefined) return openPgStateStore({ url: location.url, clock, ...options });
  const { readOnly, holder } = options;
  return openStateStore({
    file: location.path,
    clock,
    ...(readOnly === undefined ? {} : { readOnly }),
    ...(holder === undefined ? {} : { holder }),
  });
}
