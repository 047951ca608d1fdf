import type { Clock } from '../shared/clock.js';
import { SqliteStateStore, type StateStore } from '../state/index.js';
import type { InboxStore } from './inbox.js';
import { stateInbox } from './state-inbox.js';
import { WalSyncedInbox } from './wal-synced-inbox.js';

export interface ClosableInbox extends InboxStore {
  /** Why the inbox refuses every event until the daemon restarts (its WAL could not be synced), or null. */
  durabilityFailure(): string | null;
  close(): Promise<void>;
}

/**
 * The inbox the daemon's receiver writes to: the WAL-synced inbox on its own connection; or, when the state file
 * is not in WAL mode (SQLite falls back silently on file systems without shared memory), the state store's own
 * inbox, whose commits are durable through the shared synchronous=FULL connection. On PostgreSQL the state's own
 * inbox: a commit returns once the server has made it durable.
 */
export function openDaemonInbox(state: StateStore, clock: Clock): ClosableInbox {
  if (!(state instanceof SqliteStateStore) || state.db.pragma('journal_mode', { simple: true }) !== 'wal') {
    return { ...stateInbox(state.inbox), durabilityFailure: () => null, close: () => Promise.resolve() };
  }
  return WalSyncedInbox.open({ file: state.file, clock });
}
