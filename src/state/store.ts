import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../shared/clock.js';
import { CursorStore, SeenStore } from './cursors.js';
import { DeadLetterStore } from './dead-letters.js';
import { DEFAULT_STATE_FILE, prepareStateFile } from './file.js';
import { InboxStore } from './inbox.js';
import { HashStore, KeyValueStore } from './kv.js';
import { LedgerStore } from './ledger.js';
import { acquireDaemonLock, readLockHolder, type AcquiredLock, type LockHolder } from './lock.js';
import { LATEST_SCHEMA_VERSION, currentSchemaVersion, runMigrations } from './migrations.js';
import { OutboxStore } from './outbox.js';
import { RunStore } from './runs.js';

/**
 * synchronous=FULL by default: the webhook receiver answers 2xx only once an event is durable, and the ledger and
 * outbox record side effects already made outside this file. In WAL mode NORMAL keeps the file consistent but may
 * lose the last commits on power loss or an OS crash, which would turn into a lost webhook or a second external
 * write. FULL costs one fsync per commit, which group commit (inbox.insertMany) and per-page checkpoints amortize.
 */
export type SyncMode = 'full' | 'normal';

export interface OpenStateOptions {
  /** Path of the state file; `state/supply-sync.db` by default. */
  file?: string;
  clock: Clock;
  /** Read-only: no lock, no migrations; for `status` and the CLI while the daemon runs. */
  readOnly?: boolean;
  /** Take the single-daemon lock (default true for read-write opens). */
  lock?: boolean;
  synchronous?: SyncMode;
  /** How long a writer waits for another connection's lock before failing (ms). */
  busyTimeoutMs?: number;
}

export class StateStore {
  readonly cursors: CursorStore;
  readonly seen: SeenStore;
  readonly inbox: InboxStore;
  readonly outbox: OutboxStore;
  readonly ledger: LedgerStore;
  readonly deadLetters: DeadLetterStore;
  readonly kv: KeyValueStore;
  readonly hashes: HashStore;
  readonly runs: RunStore;

  constructor(
    /** The raw connection, for flows that stage their own rows inside a checkpoint transaction. */
    readonly db: Database.Database,
    readonly file: string,
    readonly clock: Clock,
    readonly readOnly: boolean,
    private readonly lock: AcquiredLock | null,
  ) {
    this.cursors = new CursorStore(db, clock);
    this.seen = new SeenStore(db);
    this.inbox = new InboxStore(db, clock);
    this.outbox = new OutboxStore(db, clock);
    this.ledger = new LedgerStore(db, clock);
    this.deadLetters = new DeadLetterStore(db, clock);
    this.kv = new KeyValueStore(db, clock);
    this.hashes = new HashStore(db, clock);
    this.runs = new RunStore(db, clock);
  }

  /** Runs `fn` in one IMMEDIATE transaction (nested calls become savepoints). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  schemaVersion(): number {
    return currentSchemaVersion(this.db);
  }

  lockHolder(): LockHolder | null {
    return readLockHolder(this.db);
  }

  /** Checks that the file still accepts writes (for readiness). */
  isWritable(): boolean {
    if (this.readOnly || !this.db.open) return false;
    try {
      this.db.prepare('BEGIN IMMEDIATE').run();
      this.db.prepare('ROLLBACK').run();
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    if (!this.db.open) return;
    this.lock?.release();
    this.db.close();
  }
}

function openReadOnly(file: string, clock: Clock, busyTimeoutMs: number): StateStore {
  if (!existsSync(file)) throw new Error(`state file ${file} does not exist; start the daemon once to create it`);
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
  const version = currentSchemaVersion(db);
  if (version !== LATEST_SCHEMA_VERSION) {
    db.close();
    throw new Error(
      `state file ${file} has schema version ${version}, this release expects ${LATEST_SCHEMA_VERSION}; ` +
        'start the daemon once to migrate it',
    );
  }
  return new StateStore(db, file, clock, true, null);
}

/** Opens (creating and migrating if needed) the state file; read-write opens take the single-daemon lock. */
export function openStateStore(options: OpenStateOptions): StateStore {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const requested = resolve(options.file ?? DEFAULT_STATE_FILE);
  if (options.readOnly) return openReadOnly(requested, options.clock, busyTimeoutMs);
  prepareStateFile(requested);
  const file = realpathSync(requested);
  const db = new Database(file, { timeout: busyTimeoutMs });
  let lock: AcquiredLock | null = null;
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${(options.synchronous ?? 'full').toUpperCase()}`);
    db.pragma('foreign_keys = ON');
    // The lock comes first: a second daemon must not even run migrations on a file another one is using.
    const migrate = () => void runMigrations(db, options.clock);
    if (options.lock === false) migrate();
    else lock = acquireDaemonLock(db, file, options.clock, migrate);
    return new StateStore(db, file, options.clock, false, lock);
  } catch (error) {
    db.close();
    throw error;
  }
}
