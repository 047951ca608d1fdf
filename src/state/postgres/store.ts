import type { Clock } from '../../shared/clock.js';
import { POSTGRES_DIALECT } from '../dialect.js';
import type { LockHolder } from '../lock.js';
import type { Fence, LeaseGrant } from '../sql-port.js';
import { StateStore } from '../state-store.js';
import { openFailure } from './errors.js';
import { describePgUrl } from './location.js';
import {
  StateSchemaOutdatedError,
  StateSchemaTooNewError,
  stateDatabaseNaming,
} from '../schema-errors.js';
import { PG_LATEST_SCHEMA_VERSION, pgSchemaVersion, runPgMigrations } from './migrations.js';
import { PgSyncPort } from './port.js';

export interface OpenPgStateOptions {
  /** postgres://user:password@host:port/database */
  readonly url: string;
  readonly clock: Clock;
  /** No migrations; for reports. The database must be at this release's schema version. */
  readonly readOnly?: boolean;
  readonly connectTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  /** See PgPortOptions.idleInTransactionTimeoutMs. */
  readonly idleInTransactionTimeoutMs?: number;
  /** See PgPortOptions.lockTimeoutMs. */
  readonly lockTimeoutMs?: number;
}

/**
 * The state in a PostgreSQL database, shared by the instances of a high-availability pair. There is no
 * single-daemon lock: the leadership lease decides which instance writes, and its fence (setFence) runs first in
 * every write transaction.
 */
export class PgStateStore extends StateStore {
  declare readonly db: PgSyncPort;

  constructor(db: PgSyncPort, url: string, clock: Clock, readOnly: boolean) {
    super({ db, dialect: POSTGRES_DIALECT, clock, readOnly, location: describePgUrl(url) });
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  setFence(fence: Fence | null): void {
    this.db.setFence(fence);
  }

  override checkFence(): LeaseGrant | undefined {
    return this.db.checkFence();
  }

  schemaVersion(): number {
    return pgSchemaVersion(this.db);
  }

  lockHolder(): LockHolder | null {
    return null;
  }

  isWritable(): boolean {
    if (this.readOnly) return false;
    try {
      const row = this.db.prepare('SELECT pg_is_in_recovery() AS standby').get() as { standby: boolean };
      return !row.standby;
    } catch {
      return false;
    }
  }

  close(): void {
    this.db.close();
  }
}

/** Connects, checks the schema version and migrates (unless read-only); every failure names state.url. */
export function openPgStateStore(options: OpenPgStateOptions): PgStateStore {
  const port = new PgSyncPort({
    url: options.url,
    readOnly: options.readOnly ?? false,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
    ...(options.idleInTransactionTimeoutMs === undefined
      ? {}
      : { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs }),
    ...(options.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: options.lockTimeoutMs }),
  });
  const location = describePgUrl(options.url);
  try {
    if (options.readOnly) {
      const version = pgSchemaVersion(port);
      if (version > PG_LATEST_SCHEMA_VERSION) {
        throw new StateSchemaTooNewError(
          version,
          PG_LATEST_SCHEMA_VERSION,
          stateDatabaseNaming(location),
        );
      }
      if (version < PG_LATEST_SCHEMA_VERSION) {
        throw new StateSchemaOutdatedError(version, PG_LATEST_SCHEMA_VERSION, stateDatabaseNaming(location));
      }
    } else {
      runPgMigrations(port, options.clock, location);
    }
    return new PgStateStore(port, options.url, options.clock, options.readOnly ?? false);
  } catch (error) {
    port.close();
    if (error instanceof StateSchemaTooNewError || error instanceof StateSchemaOutdatedError) throw error;
    throw openFailure(options.url, error);
  }
}
