import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import Database from 'better-sqlite3';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { InboxStore as StateInboxStore } from '../state/inbox.js';
import type { WebhookEvent } from './envelope.js';
import type { InboxRow, InboxStore } from './inbox.js';
import { stateInbox } from './state-inbox.js';

export interface WalSyncedInboxOptions {
  /** The state file, already created and migrated by the daemon's state store (WAL mode). */
  file: string;
  clock?: Clock;
  busyTimeoutMs?: number;
}

/**
 * The webhook inbox on its own connection, made durable without blocking the event loop.
 *
 * With synchronous=FULL every commit's fsync (several ms on ordinary disks) blocks the one thread that also
 * reads and verifies requests. Here the insert commits with synchronous=NORMAL (frames written to the WAL, no
 * fsync), then the WAL file is fsynced asynchronously on the libuv pool; the promise resolves only after that,
 * so the 2xx still follows a durable commit. Requests that arrive during the fsync form the next group.
 */
export class WalSyncedInbox implements InboxStore {
  private wal: Promise<FileHandle> | undefined;
  private readonly inner: InboxStore;

  private constructor(
    private readonly db: Database.Database,
    private readonly walPath: string,
    clock: Clock,
  ) {
    this.inner = stateInbox(new StateInboxStore(db, clock));
  }

  static open(options: WalSyncedInboxOptions): WalSyncedInbox {
    const db = new Database(options.file, { fileMustExist: true, timeout: options.busyTimeoutMs ?? 5000 });
    const mode = db.pragma('journal_mode', { simple: true });
    if (mode !== 'wal') {
      db.close();
      throw new Error(`state file ${options.file} is not in WAL mode (found ${String(mode)})`);
    }
    db.pragma('synchronous = NORMAL');
    return new WalSyncedInbox(db, `${db.name}-wal`, options.clock ?? systemClock);
  }

  async insertMany(events: readonly WebhookEvent[]): Promise<ReadonlySet<string>> {
    const newIds = await this.inner.insertMany(events);
    // Also for an all-duplicate group: the first copy's commit must be on disk before any copy gets its 2xx.
    await this.syncWal();
    return newIds;
  }

  listUndispatched(limit: number): readonly InboxRow[] | Promise<readonly InboxRow[]> {
    return this.inner.listUndispatched(limit);
  }

  markDispatched(ids: readonly string[]): void | Promise<void> {
    return this.inner.markDispatched(ids);
  }

  async close(): Promise<void> {
    const wal = this.wal;
    this.wal = undefined;
    if (wal !== undefined) await (await wal).close();
    if (this.db.open) this.db.close();
  }

  private async syncWal(): Promise<void> {
    // The WAL file lives as long as a connection is open, so one handle serves every sync.
    this.wal ??= open(this.walPath, 'r+');
    await (await this.wal).datasync();
  }
}
