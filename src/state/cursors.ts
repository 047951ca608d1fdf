import type Database from 'better-sqlite3';
import type { Clock } from '../shared/clock.js';

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
  constructor(
    private readonly db: Database.Database,
    private readonly clock: Clock,
  ) {}

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
         VALUES (@stream, @watermarkMs, @passCursor, @passSince, @passMaxMs, @updatedAt)
         ON CONFLICT (stream) DO UPDATE SET watermark_ms = excluded.watermark_ms,
           pass_cursor = excluded.pass_cursor, pass_since = excluded.pass_since,
           pass_max_ms = excluded.pass_max_ms, updated_at = excluded.updated_at`,
      )
      .run({ ...state, updatedAt: this.clock.now() });
  }

  /** Forgets a stream's position and seen-set: the next run starts a full pass. */
  reset(stream: string): boolean {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM pull_seen WHERE stream = ?').run(stream);
      return this.db.prepare('DELETE FROM cursors WHERE stream = ?').run(stream).changes > 0;
    })();
  }
}

/** The (id, updated_at) versions a stream has already delivered, kept for the overlap window. */
export class SeenStore {
  // Prepared once: these run for every record of every page.
  private readonly hasStatement: Database.Statement;
  private readonly addStatement: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.hasStatement = db.prepare('SELECT 1 FROM pull_seen WHERE stream = ? AND record_id = ? AND updated_at = ?');
    this.addStatement = db.prepare(
      'INSERT OR IGNORE INTO pull_seen (stream, record_id, updated_at, updated_ms) VALUES (?, ?, ?, ?)',
    );
  }

  has(stream: string, recordId: string, updatedAt: string): boolean {
    return this.hasStatement.get(stream, recordId, updatedAt) !== undefined;
  }

  add(stream: string, recordId: string, updatedAt: string, updatedMs: number): void {
    this.addStatement.run(stream, recordId, updatedAt, updatedMs);
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
