import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../shared/clock.js';
import { SQLITE_DIALECT } from './dialect.js';
import { DEFAULT_STATE_FILE, prepareStateFile } from './file.js';
import { fileOpenFailure, refuseFolder } from './file-errors.js';
import {
  acquireDaemonLock,
  readLockHolder,
  type AcquiredLock,
  type LockHolder,
  type LockHolderKind,
} from './lock.js';
import { LATEST_SCHEMA_VERSION, currentSchemaVersion, runMigrations } from './migrations.js';
import {
  StateSchemaOutdatedError,
  StateSchemaTooNewError,
  stateFileNaming,
} from './schema-errors.js';
import type { Fence } from './sql-port.js';
import { sqliteWriteWithoutSync } from './sqlite-durability.js';
import { StateStore } from './state-store.js';

export { StateStore };

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
  /** Who takes the lock: a one-shot command (the default) or a daemon. */
  holder?: LockHolderKind;
  synchronous?: SyncMode;
  /** How long a writer waits for another connection's lock before failing (ms). */
  busyTimeoutMs?: number;
}

/** The state in a SQLite file; better-sqlite3's connection is the SQL port itself. */
export class SqliteStateStore extends StateStore {
  declare readonly db: Database.Database;

  constructor(
    db: Database.Database,
    readonly file: string,
    clock: Clock,
    readOnly: boolean,
    private readonly lock: AcquiredLock | null,
  ) {
    super({ db, dialect: SQLITE_DIALECT, clock, readOnly, location: file, writeWithoutSync: sqliteWriteWithoutSync(db) });
  }

  /** Runs `fn` in one IMMEDIATE transaction (nested calls become savepoints). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  setFence(fence: Fence | null): void {
    if (fence !== null) throw new Error('a SQLite state file has no leadership fence: its lock keeps it to one daemon');
  }

  schemaVersion(): number {
    return currentSchemaVersion(this.db);
  }

  lockHolder(): LockHolder | null {
    return readLockHolder(this.db);
  }

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

function openReadOnly(file: string, clock: Clock, busyTimeoutMs: number): SqliteStateStore {
  if (!existsSync(file)) throw new Error(`state file ${file} does not exist; start the daemon once to create it`);
  const db = openDatabase(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
  try {
    refuseOtherSchema(currentSchemaVersion(db), file);
  } catch (error) {
    db.close();
    throw fileOpenFailure(file, error, true);
  }
  return new SqliteStateStore(db, file, clock, true, null);
}

/** A read-only open reads this release's schema only: an older file is migrated by the daemon, a newer one not at all. */
function refuseOtherSchema(version: number, file: string): void {
  if (version > LATEST_SCHEMA_VERSION) {
    throw new StateSchemaTooNewError(version, LATEST_SCHEMA_VERSION, stateFileNaming(file));
  }
  if (version < LATEST_SCHEMA_VERSION) {
    throw new StateSchemaOutdatedError(version, LATEST_SCHEMA_VERSION, stateFileNaming(file));
  }
}

function openDatabase(file: string, options: Database.Options): Database.Database {
  try {
    return new Database(file, options);
  } catch (error) {
    throw fileOpenFailure(file, error, options.readonly === true);
  }
}

/** Opens (creating and migrating if needed) the state file; read-write opens take the single-daemon lock. */
export function openStateStore(options: OpenStateOptions): SqliteStateStore {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const requested = resolve(options.file ?? DEFAULT_STATE_FILE);
  refuseFolder(requested);
  if (options.readOnly) return openReadOnly(requested, options.clock, busyTimeoutMs);
  prepareStateFile(requested);
  const file = realpathSync(requested);
  const db = openDatabase(file, { timeout: busyTimeoutMs });
  let lock: AcquiredLock | null = null;
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${(options.synchronous ?? 'full').toUpperCase()}`);
    db.pragma('foreign_keys = ON');
    // The lock comes first: a second daemon must not even run migrations on a file another one is using.
    const migrate = () => void runMigrations(db, options.clock);
    if (options.lock === false) migrate();
    else lock = acquireDaemonLock(db, file, options.clock, migrate, options.holder);
    return new SqliteStateStore(db, file, options.clock, false, lock);
  } catch (error) {
    db.close();
    throw fileOpenFailure(file, error, false);
  }
}
