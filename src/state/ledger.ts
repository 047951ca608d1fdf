import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort } from './sql-port.js';
import { SQLITE_DIALECT, type StateDialect } from './dialect.js';
import { cachedStatements, optional, type StatementCache } from './statements.js';

export interface LedgerEntry {
  flow: string;
  connector: string;
  recordKey: string;
  /** The record's version or content hash; a new version is a new write. */
  version: string;
  externalRef: string | null;
  writtenAt: number;
}

interface LedgerRow {
  flow: string;
  connector: string;
  record_key: string;
  version: string;
  external_ref: string | null;
  written_at: number;
}

function fromRow(row: LedgerRow): LedgerEntry {
  return {
    flow: row.flow,
    connector: row.connector,
    recordKey: row.record_key,
    version: row.version,
    externalRef: row.external_ref,
    writtenAt: row.written_at,
  };
}

export interface LedgerKey {
  flow: string;
  connector: string;
  recordKey: string;
  version: string;
}

/** What each flow wrote to each connector, so a restart never writes the same version twice. */
export class LedgerStore {
  private readonly db: StatementCache;

  constructor(
    db: SyncSqlPort,
    private readonly clock: Clock,
    private readonly dialect: StateDialect = SQLITE_DIALECT,
  ) {
    this.db = cachedStatements(db);
  }

  has(key: LedgerKey): boolean {
    return this.get(key) !== null;
  }

  get(key: LedgerKey): LedgerEntry | null {
    const row = this.db
      .prepare('SELECT * FROM ledger WHERE flow = ? AND connector = ? AND record_key = ? AND version = ?')
      .get(key.flow, key.connector, key.recordKey, key.version) as LedgerRow | undefined;
    return row ? fromRow(row) : null;
  }

  /**
   * The version recorded last for a record, if any. Ordered by insertion (SQLite's rowid), not by written_at: two writes
   * within one millisecond, or a clock set back, must not swap which one is current.
   */
  latest(flow: string, connector: string, recordKey: string): LedgerEntry | null {
    const row = this.db
      .prepare(
        `SELECT * FROM ledger WHERE flow = ? AND connector = ? AND record_key = ?
         ORDER BY ${this.dialect.insertionOrder} DESC LIMIT 1`,
      )
      .get(flow, connector, recordKey) as LedgerRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Records a write; returns false when this exact version was already recorded. */
  record(key: LedgerKey, externalRef: string | null = null): boolean {
    return (
      this.db
        .prepare(
          `INSERT INTO ledger (flow, connector, record_key, version, external_ref, written_at)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        )
        .run(key.flow, key.connector, key.recordKey, key.version, externalRef, this.clock.now()).changes > 0
    );
  }

  /**
   * Records a write of `key.version` as the record's current version, also when that version was written before
   * (a value that went A -> B -> A): the row is inserted again, so latest() returns it.
   */
  recordCurrent(key: LedgerKey, externalRef: string | null = null): void {
    this.db.transaction(() => {
      this.db
        .prepare('DELETE FROM ledger WHERE flow = ? AND connector = ? AND record_key = ? AND version = ?')
        .run(key.flow, key.connector, key.recordKey, key.version);
      this.record(key, externalRef);
    })();
  }

  /** Fills in the external reference once known (for example the ERP's order number). */
  setExternalRef(key: LedgerKey, externalRef: string): void {
    this.db
      .prepare(
        'UPDATE ledger SET external_ref = ? WHERE flow = ? AND connector = ? AND record_key = ? AND version = ?',
      )
      .run(externalRef, key.flow, key.connector, key.recordKey, key.version);
  }

  count(flow?: string): number {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM ledger ${flow === undefined ? '' : 'WHERE flow = ?'}`)
      .get(...optional(flow)) as { n: number };
    return row.n;
  }
}
