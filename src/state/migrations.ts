import type Database from 'better-sqlite3';
import type { Clock } from '../shared/clock.js';
import { StateSchemaTooNewError, stateFileNaming } from './schema-errors.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * Forward-only schema history. Never edit a released entry: append a new one. Timestamps are integer epoch
 * milliseconds from the injected clock.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial state schema',
    sql: `
      CREATE TABLE daemon_lock (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        pid INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        token TEXT NOT NULL,
        started_at INTEGER NOT NULL
      );
      CREATE TABLE cursors (
        stream TEXT PRIMARY KEY,
        watermark_ms INTEGER,
        pass_cursor TEXT,
        pass_since TEXT,
        pass_max_ms INTEGER,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE pull_seen (
        stream TEXT NOT NULL,
        record_id TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY (stream, record_id, updated_at)
      ) WITHOUT ROWID;
      CREATE INDEX pull_seen_by_time ON pull_seen (stream, updated_ms);
      CREATE TABLE inbox (
        event_id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        payload BLOB NOT NULL,
        received_at INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'dispatched')),
        dispatched_at INTEGER
      );
      CREATE INDEX inbox_by_status ON inbox (status, received_at);
      CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        stream TEXT NOT NULL,
        idempotency_key TEXT NOT NULL UNIQUE,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        body BLOB,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error TEXT,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'dead')),
        result TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
      CREATE TABLE ledger (
        flow TEXT NOT NULL,
        connector TEXT NOT NULL,
        record_key TEXT NOT NULL,
        version TEXT NOT NULL,
        external_ref TEXT,
        written_at INTEGER NOT NULL,
        PRIMARY KEY (flow, connector, record_key, version)
      );
      CREATE TABLE dead_letters (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        flow TEXT NOT NULL,
        record_key TEXT NOT NULL,
        record TEXT NOT NULL,
        reason TEXT NOT NULL,
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 1,
        status TEXT NOT NULL DEFAULT 'open'
          CHECK (status IN ('open', 'retrying', 'discarded', 'resolved')),
        UNIQUE (flow, record_key)
      );
      CREATE INDEX dead_letters_by_status ON dead_letters (status, flow);
      CREATE TABLE kv (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (namespace, key)
      );
      CREATE TABLE hashes (
        flow TEXT NOT NULL,
        key TEXT NOT NULL,
        hash TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (flow, key)
      ) WITHOUT ROWID;
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job TEXT NOT NULL,
        trigger TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        outcome TEXT CHECK (outcome IN ('ok', 'partial', 'failed', 'skipped')),
        counts TEXT,
        error TEXT
      );
      CREATE INDEX runs_by_job ON runs (job, started_at);
    `,
  },
  {
    version: 2,
    name: 'operator commands, paused jobs, run details',
    sql: `
      CREATE TABLE commands (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        args TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        requested_by TEXT NOT NULL,
        requested_at INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        claimed_at INTEGER,
        finished_at INTEGER,
        result TEXT,
        error_code TEXT,
        error TEXT
      );
      CREATE INDEX commands_by_status ON commands (status, id);
      CREATE TABLE paused_jobs (
        job TEXT PRIMARY KEY,
        paused_at INTEGER NOT NULL,
        paused_by TEXT NOT NULL,
        reason TEXT
      );
      ALTER TABLE runs ADD COLUMN dead_letters INTEGER;
      ALTER TABLE runs ADD COLUMN requested_by TEXT;
    `,
  },
  {
    version: 3,
    name: 'notification queue',
    sql: `
      CREATE TABLE notifications (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        dedup_key TEXT NOT NULL,
        channel TEXT NOT NULL,
        event TEXT NOT NULL,
        message TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error TEXT,
        answer TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (dedup_key, channel)
      );
      CREATE INDEX notifications_due ON notifications (status, next_attempt_at);
    `,
  },
  {
    version: 4,
    name: 'pending webhook events in a table of their own',
    // Dispatching deletes a small row here instead of rewriting the inbox row with its payload, and the inbox's
    // time index serves pruning.
    sql: `
      CREATE TABLE inbox_pending (
        received_at INTEGER NOT NULL,
        event_id TEXT NOT NULL,
        type TEXT NOT NULL,
        PRIMARY KEY (received_at, event_id)
      ) WITHOUT ROWID;
      INSERT INTO inbox_pending (received_at, event_id, type)
        SELECT received_at, event_id, type FROM inbox WHERE status = 'pending';
      DROP INDEX inbox_by_status;
      ALTER TABLE inbox DROP COLUMN status;
      ALTER TABLE inbox DROP COLUMN dispatched_at;
      CREATE INDEX inbox_by_time ON inbox (received_at);
    `,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

function ensureVersionTable(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
}

export function currentSchemaVersion(db: Database.Database): number {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    .get();
  if (table === undefined) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Applies every migration above the file's version, each in its own transaction, up to `target`.
 * Returns the versions applied. Refuses a file written by a newer release.
 */
export function runMigrations(
  db: Database.Database,
  clock: Clock,
  options: { migrations?: readonly Migration[]; target?: number } = {},
): number[] {
  const migrations = [...(options.migrations ?? MIGRATIONS)].sort((a, b) => a.version - b.version);
  const latest = migrations.at(-1)?.version ?? 0;
  const target = options.target ?? latest;
  ensureVersionTable(db);
  const from = currentSchemaVersion(db);
  if (from > latest) {
    throw new StateSchemaTooNewError(from, latest, stateFileNaming(db.name));
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= from || migration.version > target) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        clock.now(),
      );
    }).immediate();
    applied.push(migration.version);
  }
  return applied;
}
