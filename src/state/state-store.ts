import type { Clock } from '../shared/clock.js';
import { CommandStore } from './commands.js';
import { CursorStore, SeenStore } from './cursors.js';
import { DeadLetterStore } from './dead-letters.js';
import type { StateBackend, StateDialect } from './dialect.js';
import { InboxStore } from './inbox.js';
import { HashStore, KeyValueStore } from './kv.js';
import { LedgerStore } from './ledger.js';
import { NotificationQueue } from './notifications.js';
import type { LockHolder } from './lock.js';
import { OutboxStore } from './outbox.js';
import { PausedJobStore } from './paused-jobs.js';
import { RunStore, type WriteWithoutSync } from './runs.js';
import type { Fence, LeaseGrant, SyncSqlPort } from './sql-port.js';

export interface StateStoreParts {
  readonly db: SyncSqlPort;
  readonly dialect: StateDialect;
  readonly clock: Clock;
  readonly readOnly: boolean;
  /** Where the state lives, for messages: a file path, or a database URL without its password. */
  readonly location: string;
  readonly writeWithoutSync?: WriteWithoutSync;
}

/**
 * The daemon's state, whatever holds it: the sub-stores (cursors, inbox, outbox, ledger, ...) on one synchronous
 * SQL port, so flows keep calling them as plain functions and keep a page's records and its cursor in one
 * transaction. SqliteStateStore (store.ts) and PgStateStore (postgres/store.ts) differ in how they open, lock
 * and check the database.
 */
export abstract class StateStore {
  /** The connection, for flows that stage their own rows inside a checkpoint transaction. */
  readonly db: SyncSqlPort;
  readonly dialect: StateDialect;
  readonly clock: Clock;
  readonly readOnly: boolean;
  readonly location: string;
  readonly cursors: CursorStore;
  readonly seen: SeenStore;
  readonly inbox: InboxStore;
  readonly outbox: OutboxStore;
  readonly ledger: LedgerStore;
  readonly deadLetters: DeadLetterStore;
  readonly kv: KeyValueStore;
  readonly hashes: HashStore;
  readonly runs: RunStore;
  readonly notifications: NotificationQueue;
  readonly commands: CommandStore;
  readonly pausedJobs: PausedJobStore;

  protected constructor(parts: StateStoreParts) {
    const { db, clock } = parts;
    this.db = db;
    this.dialect = parts.dialect;
    this.clock = clock;
    this.readOnly = parts.readOnly;
    this.location = parts.location;
    this.cursors = new CursorStore(db, clock, parts.writeWithoutSync);
    this.seen = new SeenStore(db);
    this.inbox = new InboxStore(db, clock);
    this.outbox = new OutboxStore(db, clock);
    this.ledger = new LedgerStore(db, clock, parts.dialect);
    this.deadLetters = new DeadLetterStore(db, clock);
    this.kv = new KeyValueStore(db, clock);
    this.hashes = new HashStore(db, clock);
    this.runs = new RunStore(db, clock, parts.writeWithoutSync);
    this.notifications = new NotificationQueue(db, clock);
    this.commands = new CommandStore(db, clock);
    this.pausedJobs = new PausedJobStore(db, clock);
  }

  get backend(): StateBackend {
    return this.dialect.backend;
  }

  /** Runs `fn` in one write transaction (nested calls become savepoints). */
  abstract transaction<T>(fn: () => T): T;

  /**
   * Sets the check run first inside every write transaction (null removes it). Only a shared state has one:
   * a SQLite file is kept to one daemon by its lock.
   */
  abstract setFence(fence: Fence | null): void;

  /**
   * Runs the fence on its own (LeadershipLostError when a write would be refused now); nothing where there is none.
   * For an external call that must not start once this instance has lost its term, such as an outbox send. Returns
   * how long the lease has left when there is a lease.
   */
  checkFence(): LeaseGrant | undefined {
    // A state file has no fence: its lock keeps it to one daemon.
    return undefined;
  }

  abstract schemaVersion(): number;

  /** The daemon holding the single-daemon lock, where the backend has one. */
  abstract lockHolder(): LockHolder | null;

  /** Checks that the state still accepts writes (for readiness). */
  abstract isWritable(): boolean;

  abstract close(): void;
}
