import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort, SyncStatement } from './sql-port.js';
import type { WriteWithoutSync } from './runs.js';
import { cachedStatements, type StatementCache } from './statements.js';

/**
 * Where an incremental stream stands. `watermarkMs`: every record updated at or before it has been processed
 * (modulo late commits, which the pull's overlap covers). `pass*`: an unfinished pass over the API's pages, so a
 * run cut short resumes the same pass from the API's next cursor.
 */
export interface CursorState {
  stream: string;
  watermarkMs: number | null;
  passCursor: string | null;
  passSince: string | null;
  passMaxMs: number | null;
  updatedAt: number;
}

interface CursorRow {
  stream: string;
  watermark_ms: number | null;
  pass_cursor: string | null;
  pass_since: string | null;
  pass_max_ms: number | null;
  updated_at: number;
}

function fromRow(row: CursorRow): CursorState {
  return {
    stream: row.stream,
    watermarkMs: row.watermark_ms,
    passCursor: row.pass_cursor,
    passSince: row.pass_since,
    passMaxMs: row.pass_max_ms,
    updatedAt: row.updated_at,
  };
}

export class CursorStore {
  private readonly db: StatementCache;

  constructor(
    private readonly port: SyncSqlPort,
    private readonly clock: Clock,
    private readonly withoutSync: WriteWithoutSync = (write) => write(),
  ) {
    this.db = cachedStatements(port);
  }

  /**
   * The stream was read and nothing changed: only its time moves (the lag the metrics show), committed without a
   * sync of its own, as a power loss would take back nothing but that time.
   */
  touch(stream: string): void {
    const update = () =>
      this.db.prepare('UPDATE cursors SET updated_at = ? WHERE stream = ?').run(this.clock.now(), stream).changes;
    if (this.port.inTransaction) update();
    else this.withoutSync(update);
  }

  get(stream: string): CursorState | null {
    const row = this.db.prepare('SELECT * FROM cursors WHERE stream = ?').get(stream) as CursorRow | undefined;
    return row ? fromRow(row) : null;
  }

  list(): CursorState[] {
    const rows = this.db.prepare('SELECT * FROM cursors ORDER BY stream').all() as CursorRow[];
    return rows.map(fromRow);
  }

  save(state: Omit<CursorState, 'updatedAt'>): void {
    this.db
      .prepare(
        `INSERT INTO cursors (stream, watermark_ms, pass_cursor, pass_since, pass_max_ms, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (stream) DO UPDATE SET watermark_ms = excluded.watermark_ms,
           pass_cursor = excluded.pass_cursor, pass_since = excluded.pass_since,
           pass_max_ms = excluded.pass_max_ms, updated_at = excluded.updated_at`,
      )
      .run(
        state.stream,
        state.watermarkMs,
        state.passCursor,
        state.passSince,
        state.passMaxMs,
        this.clock.now(),
      );
  }

  /** Forgets a stream's position and seen-set: the next run starts a full pass. */
  reset(stream: string): boolean {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM pull_seen WHERE stream = ?').run(stream);
      return this.db.prepare('DELETE FROM cursors WHERE stream = ?').run(stream).changes > 0;
    })();
  }
}

/** A version of a record a stream has delivered. */
export interface SeenVersion {
  recordId: string;
  updatedAt: string;
  /** Date.parse(updatedAt): the same function must compute it for every row, see newestMs. */
  updatedMs: number;
}

/** Rows per multi-row INSERT of addMany: 4 parameters each, far below SQLite's and PostgreSQL's limits. */
const ADD_CHUNK = 50;

/** The (id, updated_at) versions a stream has already delivered, kept for the overlap window. */
export class SeenStore {
  // Prepared once: these run for every record of every page.
  private readonly hasStatement: SyncStatement;
  private readonly addStatement: SyncStatement;
  private readonly newestStatement: SyncStatement;
  /** Multi-row inserts by row count, prepared on first use. */
  private readonly addManyStatements = new Map<number, SyncStatement>();

  constructor(private readonly db: SyncSqlPort) {
    this.hasStatement = db.prepare('SELECT 1 FROM pull_seen WHERE stream = ? AND record_id = ? AND updated_at = ?');
    this.addStatement = db.prepare(
      'INSERT INTO pull_seen (stream, record_id, updated_at, updated_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.newestStatement = db.prepare('SELECT max(updated_ms) AS newest FROM pull_seen WHERE stream = ?');
  }

  has(stream: string, recordId: string, updatedAt: string): boolean {
    return this.hasStatement.get(stream, recordId, updatedAt) !== undefined;
  }

  add(stream: string, recordId: string, updatedAt: string, updatedMs: number): void {
    this.addStatement.run(stream, recordId, updatedAt, updatedMs);
  }

  /**
   * The highest updated_ms of the stream's versions (one index lookup), or null for none: a version whose
   * Date.parse(updated_at) is above it cannot be in the set, so the pull looks up only those at or below it.
   */
  newestMs(stream: string): number | null {
    const row = this.newestStatement.get(stream) as { newest: number | string | null } | undefined;
    return row?.newest === null || row?.newest === undefined ? null : Number(row.newest);
  }

  /** Adds a page of versions with a few multi-row statements instead of one statement per version. */
  addMany(stream: string, versions: readonly SeenVersion[]): void {
    for (let start = 0; start < versions.length; start += ADD_CHUNK) {
      const chunk = versions.slice(start, start + ADD_CHUNK);
      const values: Array<string | number> = [];
      for (const v of chunk) values.push(stream, v.recordId, v.updatedAt, v.updatedMs);
      this.addManyStatement(chunk.length).run(...values);
    }
  }

  private addManyStatement(rows: number): SyncStatement {
    let statement = this.addManyStatements.get(rows);
    if (statement === undefined) {
      const tuples = Array.from({ length: rows }, () => '(?, ?, ?, ?)').join(', ');
      statement = this.db.prepare(
        `INSERT INTO pull_seen (stream, record_id, updated_at, updated_ms) VALUES ${tuples} ON CONFLICT DO NOTHING`,
      );
      this.addManyStatements.set(rows, statement);
    }
    return statement;
  }

  /** Drops versions older than `beforeMs`; a query with updated_since at or after it can never return them. */
  prune(stream: string, beforeMs: number): number {
    return this.db.prepare('DELETE FROM pull_seen WHERE stream = ? AND updated_ms < ?').run(stream, beforeMs)
      .changes;
  }

  count(stream: string): number {
    const row = this.db.prepare('SELECT COUNT(*) AS n FROM pull_seen WHERE stream = ?').get(stream) as {
      n: number;
    };
    return row.n;
  }
}
