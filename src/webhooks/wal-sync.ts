import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export interface WalFileSyncerOptions {
  /** Syncs allowed to run at once (1 by default). */
  concurrentSyncs?: number;
  /** The sync call; fdatasync by default (tests replace it to hold or fail a sync). */
  datasync?: (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Makes commits already written to a SQLite -wal file durable with fdatasync on the libuv pool, so the event
 * loop never blocks on the disk. Callers that ask while the allowed number of syncs are running wait together for
 * the next one to start: one sync then covers however many groups were committed meanwhile.
 */
export class WalFileSyncer {
  private readonly fd: number;
  private readonly maxRunning: number;
  private readonly datasync: NonNullable<WalFileSyncerOptions['datasync']>;
  private running = 0;
  private started = 0;
  private waiting: Waiter[] = [];
  private readonly idleWaiters: Array<() => void> = [];
  /**
   * After a failed fsync the kernel may have dropped the dirty pages, and a later fsync can succeed without them,
   * so one failure is final: nothing is reported durable again until the inbox is reopened (SQLite recovery).
   */
  private failure: { error: unknown } | undefined;
  private closed = false;

  constructor(walPath: string, options: WalFileSyncerOptions = {}) {
    this.maxRunning = Math.max(1, options.concurrentSyncs ?? 1);
    this.datasync = options.datasync ?? fdatasync;
    this.fd = openSync(walPath, 'r+');
    // SQLite fsyncs the folder after creating a -wal file only at its own first sync of it (a checkpoint, under
    // synchronous=NORMAL); until then a power failure could lose the file's name along with the frames in it.
    syncDirectory(dirname(walPath));
  }

  /**
   * Resolves once everything written to the WAL before this call is on disk. A sync already running may have
   * started before the caller's write, so the caller never joins one: it waits for a sync that starts later.
   */
  durable(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.failure !== undefined) return reject(this.failure.error);
      if (this.closed) return reject(new Error('the WAL syncer is closed'));
      this.waiting.push({ resolve, reject });
      if (this.running < this.maxRunning) this.startSync();
    });
  }

  /** Why nothing is reported durable any more (a failed fsync), or null while syncs succeed. */
  get failedWith(): string | null {
    if (this.failure === undefined) return null;
    const { error } = this.failure;
    return error instanceof Error ? error.message : String(error);
  }

  /** Syncs started so far (for the benchmark's events-per-sync figure). */
  get syncCount(): number {
    return this.started;
  }

  /** Waits for running syncs, then closes the file handle. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.running > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    closeSync(this.fd);
  }

  private startSync(): void {
    const group = this.waiting;
    this.waiting = [];
    this.running += 1;
    this.started += 1;
    this.datasync(this.fd, (error) => {
      this.running -= 1;
      if (error !== null) this.failure ??= { error };
      if (this.failure !== undefined) group.push(...this.waiting.splice(0));
      for (const waiter of group) {
        if (this.failure === undefined) waiter.resolve();
        else waiter.reject(this.failure.error);
      }
      if (this.waiting.length > 0) this.startSync();
      else if (this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }
}

function syncDirectory(path: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
