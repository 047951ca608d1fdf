import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort } from './sql-port.js';

export interface PausedJob {
  job: string;
  pausedAt: number;
  pausedBy: string;
  reason: string | null;
}

interface PausedRow {
  job: string;
  paused_at: number;
  paused_by: string;
  reason: string | null;
}

function fromRow(row: PausedRow): PausedJob {
  return { job: row.job, pausedAt: Number(row.paused_at), pausedBy: row.paused_by, reason: row.reason };
}

/** Jobs an operator paused: kept in the state so a pause outlives restarts and failovers. */
export class PausedJobStore {
  constructor(
    private readonly db: SyncSqlPort,
    private readonly clock: Clock,
  ) {}

  /** Pauses a job; false when it was paused already (the first pause, its time, author and reason, is kept). */
  pause(job: string, by: string, reason: string | null): boolean {
    return (
      this.db
        .prepare(
          'INSERT INTO paused_jobs (job, paused_at, paused_by, reason) VALUES (?, ?, ?, ?) ON CONFLICT (job) DO NOTHING',
        )
        .run(job, this.clock.now(), by, reason).changes > 0
    );
  }

  /** False when the job was not paused. */
  resume(job: string): boolean {
    return this.db.prepare('DELETE FROM paused_jobs WHERE job = ?').run(job).changes > 0;
  }

  get(job: string): PausedJob | null {
    const row = this.db.prepare('SELECT * FROM paused_jobs WHERE job = ?').get(job) as PausedRow | undefined;
    return row ? fromRow(row) : null;
  }

  list(): PausedJob[] {
    return (this.db.prepare('SELECT * FROM paused_jobs ORDER BY job').all() as PausedRow[]).map(fromRow);
  }
}
