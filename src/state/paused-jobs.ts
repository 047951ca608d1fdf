import type { Clock } from '../shared/clock.js';
import { KeyValueStore } from './kv.js';
import type { SyncSqlPort } from './sql-port.js';

/** The kv namespace of when each job was last resumed (one entry per job, replaced by its next resume). */
const RESUMED = 'resumed_jobs';

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

/**
 * Jobs an operator paused: kept in the state so a pause outlives restarts and failovers. When a job was last resumed
 * is kept too, so what is measured from a job's last run (its freshness) can start again from the resume.
 */
export class PausedJobStore {
  private readonly kv: KeyValueStore;

  constructor(
    private readonly db: SyncSqlPort,
    private readonly clock: Clock,
  ) {
    this.kv = new KeyValueStore(db, clock);
  }

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

  /** False when the job was not paused. Notes the time of the resume; call inside a transaction to keep both. */
  resume(job: string): boolean {
    if (this.db.prepare('DELETE FROM paused_jobs WHERE job = ?').run(job).changes === 0) return false;
    this.kv.set(RESUMED, job, this.clock.now());
    return true;
  }

  /** When the job was last resumed; null when it never was. */
  resumedAt(job: string): number | null {
    const at = this.kv.get(RESUMED, job);
    return typeof at === 'number' ? at : null;
  }

  get(job: string): PausedJob | null {
    const row = this.db.prepare('SELECT * FROM paused_jobs WHERE job = ?').get(job) as PausedRow | undefined;
    return row ? fromRow(row) : null;
  }

  list(): PausedJob[] {
    return (this.db.prepare('SELECT * FROM paused_jobs ORDER BY job').all() as PausedRow[]).map(fromRow);
  }
}
