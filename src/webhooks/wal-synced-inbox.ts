import Database from 'better-sqlite3';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { InboxStore as StateInboxStore } from '../state/inbox.js';
import type { WebhookEvent } from './envelope.js';
import type { InboxRow, InboxStore } from './inbox.js';
import { stateInbox } from './state-inbox.js';
import { WalFileSyncer } from './wal-sync.js';

/**
 * Syncs allowed to run at once, for a receiver that lets several group commits wait at once. Measured on a virtual
 * disk, concurrent fdatasyncs take about as long as one, while one at a time makes a group that commits during a
 * sync wait for it and then for its own. The libuv pool that runs them has 4 threads; 3 leaves one for other file
 * work.
 */
export const DEFAULT_CONCURRENT_SYNCS = 3;

export interface WalSyncedInboxOptions {
  /** The state file, already created and migrated by the daemon's state store (WAL mode). */
  file: string;
  clock?: Clock;
  busyTimeoutMs?: number;
  /** WAL syncs allowed to run at once; DEFAULT_CONCURRENT_SYNCS when absent. */
  concurrentSyncs?: number;
}

/**
 * The webhook inbox on its own connection, made durable without blocking the event loop.
 *
 * With synchronous=FULL every commit's fsync (from a fraction of a millisecond to several on ordinary disks)
 * blocks the one thread that also reads and verifies requests. Here a group commits with synchronous=NORMAL and
 * the -wal file is then fdatasync'ed on the libuv pool; insertMany resolves only after that sync, so the 2xx
 * still follows a durable commit. Why that is as durable as FULL, for these rows:
 * - In WAL mode a commit is a write() of the group's page frames, the last one marked as a commit, each frame
 *   checksummed over the ones before it. Once those bytes are synced, recovery after a crash or power loss
 *   replays every frame up to the last intact commit marker, so the group is there.
 * - Under NORMAL, SQLite itself syncs the WAL before each checkpoint and the database file after it, before the
 *   WAL may be restarted and its frames overwritten: rows already copied into the database file stay durable.
 * - The -wal file is removed only when the last connection to the database closes; this connection keeps it, so
 *   the descriptor the syncer holds is the live WAL for as long as the inbox is open.
 * - A sync covers only commits written before it started (WalFileSyncer), so no request is answered by a sync
 *   that was already running when its group committed.
 */
export class WalSyncedInbox implements InboxStore {
  private readonly inner: InboxStore;

  private constructor(
    private readonly db: Database.Database,
    private readonly wal: WalFileSyncer,
    clock: Clock,
  ) {
    this.inner = stateInbox(new StateInboxStore(db, clock));
  }

  static open(options: WalSyncedInboxOptions): WalSyncedInbox {
    const db = new Database(options.file, { fileMustExist: true, timeout: options.busyTimeoutMs ?? 5000 });
    try {
      const mode = db.pragma('journal_mode', { simple: true });
      if (mode !== 'wal')
        throw new Error(`state file ${options.file} is not in WAL mode (found ${String(mode)})`);
      db.pragma('synchronous = NORMAL');
      // The -wal file exists once the connection has read the database (the journal_mode query above).
      return new WalSyncedInbox(
        db,
        new WalFileSyncer(`${db.name}-wal`, {
          concurrentSyncs: options.concurrentSyncs ?? DEFAULT_CONCURRENT_SYNCS,
        }),
        options.clock ?? systemClock,
      );
    } catch (error) {
      db.close();
      throw error;
    }
  }

  async insertMany(events: readonly WebhookEvent[]): Promise<ReadonlySet<string>> {
    const newIds = await this.inner.insertMany(events);
    // Also for an all-duplicate group: the first copy's commit must be on disk before any copy gets its 2xx.
    await this.wal.durable();
    return newIds;
  }

  listUndispatched(limit: number): readonly InboxRow[] | Promise<readonly InboxRow[]> {
    return this.inner.listUndispatched(limit);
  }

  markDispatched(rows: readonly InboxRow[]): void | Promise<void> {
    return this.inner.markDispatched(rows);
  }

  /** WAL syncs started so far. */
  get syncCount(): number {
    return this.wal.syncCount;
  }

  /** Why events can no longer be made durable (a failed fsync of the WAL), or null. */
  durabilityFailure(): string | null {
    return this.wal.failedWith;
  }

  async close(): Promise<void> {
    await this.wal.close();
    if (this.db.open) this.db.close();
  }
}
