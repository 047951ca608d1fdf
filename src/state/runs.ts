import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort } from './sql-port.js';

export type RunOutcome = 'ok' | 'partial' | 'failed' | 'skipped';
/** `cli`: a `sync <job>` run outside the daemon; `operator`: a run now the daemon carried out for a command. */
export type RunTrigger = 'schedule' | 'webhook' | 'cli' | 'catch-up' | 'operator';

export interface RunRecord {
  id: number;
  job: string;
  trigger: RunTrigger;
  /**
   * Who asked for the run: the caller of an operator command (`api:<name>@<address>`, `cli:<user>@<host>`), else
   * the trigger (`schedule`, `webhook`, `catch-up`, `cli`); the trigger also for runs recorded before this was kept.
   */
  requestedBy: string;
  startedAt: number;
  endedAt: number | null;
  outcome: RunOutcome | null;
  counts: Record<string, number>;
  /** The run's first error (a partial run's first failing record, a failed run's cause). */
  error: string | null;
  /** Dead letters the run created; null for a run without an end, or recorded before this was kept. */
  deadLetters: number | null;
}

interface RunRow {
  id: number;
  job: string;
  trigger: RunTrigger;
  requested_by: string | null;
  started_at: number;
  ended_at: number | null;
  outcome: RunOutcome | null;
  counts: string | null;
  error: string | null;
  dead_letters: number | null;
}

function fromRow(row: RunRow): RunRecord {
  return {
    id: row.id,
    job: row.job,
    trigger: row.trigger,
    requestedBy: row.requested_by ?? row.trigger,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    outcome: row.outcome,
    counts: row.counts === null ? {} : (JSON.parse(row.counts) as Record<string, number>),
    error: row.error,
    deadLetters: row.dead_letters ?? null,
  };
}

export interface RunFilter {
  job?: string;
  /** Only runs that failed or ended partial. */
  failed?: boolean;
  /** Only runs started at or after this time (epoch ms). */
  since?: number;
  limit?: number;
}

/** Run history per job: what ran, when, how it ended. A run with no end was cut off by a crash. */
/** Commits a write that need not be synced on its own (see RunStore.start); the backend decides how. */
export type WriteWithoutSync = (write: () => number) => number;

export class RunStore {
  constructor(
    private readonly db: SyncSqlPort,
    private readonly clock: Clock,
    private readonly withoutSync: WriteWithoutSync = (write) => write(),
  ) {}

  /**
   * The start row is history only, so it is committed without a sync of its own: it sits between a webhook and the
   * run's first request. A process crash keeps it (the WAL write is done); on a power loss it goes with the
   * run's first synced commit, which would have made it durable.
   */
  start(job: string, trigger: RunTrigger, requestedBy: string = trigger): number {
    const insert = () => {
      const row = this.db
        .prepare('INSERT INTO runs (job, trigger, requested_by, started_at) VALUES (?, ?, ?, ?) RETURNING id')
        .get(job, trigger, requestedBy, this.clock.now()) as { id: number };
      return row.id;
    };
    return this.db.inTransaction ? insert() : this.withoutSync(insert);
  }

  /** Ends a run; the dead letters it created are those of its job first seen since it started. */
  finish(id: number, outcome: RunOutcome, counts: Record<string, number>, error: string | null): void {
    this.db
      .prepare(
        `UPDATE runs SET ended_at = ?, outcome = ?, counts = ?, error = ?,
           dead_letters = (SELECT COUNT(*) FROM dead_letters WHERE dead_letters.flow = runs.job
                           AND dead_letters.first_seen >= runs.started_at)
         WHERE id = ?`,
      )
      .run(this.clock.now(), outcome, JSON.stringify(counts), error, id);
  }

  get(id: number): RunRecord | null {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
    return row ? fromRow(row) : null;
  }

  recent(job: string, limit = 20): RunRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM runs WHERE job = ? ORDER BY started_at DESC, id DESC LIMIT ?')
      .all(job, limit) as RunRow[];
    return rows.map(fromRow);
  }

  last(job: string, outcomes?: readonly RunOutcome[]): RunRecord | null {
    const filter = outcomes ? `AND outcome IN (${outcomes.map(() => '?').join(', ')})` : '';
    const row = this.db
      .prepare(`SELECT * FROM runs WHERE job = ? ${filter} ORDER BY started_at DESC, id DESC LIMIT 1`)
      .get(job, ...(outcomes ?? [])) as RunRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Runs newest first, by job, failed or partial only, started since a time. */
  list(filter: RunFilter = {}): RunRecord[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.job !== undefined) {
      where.push('job = ?');
      params.push(filter.job);
    }
    if (filter.failed === true) where.push("outcome IN ('failed', 'partial')");
    if (filter.since !== undefined) {
      where.push('started_at >= ?');
      params.push(filter.since);
    }
    const rows = this.db
      .prepare(
        `SELECT * FROM runs ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
         ORDER BY started_at DESC, id DESC LIMIT ?`,
      )
      .all(...params, filter.limit ?? 1000) as RunRow[];
    return rows.map(fromRow);
  }

  jobs(): string[] {
    const rows = this.db.prepare('SELECT DISTINCT job FROM runs ORDER BY job').all() as Array<{ job: string }>;
    return rows.map((r) => r.job);
  }

  /** Closes runs left open by a crash, so history never shows a run as still going. */
  closeInterrupted(): number {
    return this.db
      .prepare("UPDATE runs SET ended_at = ?, outcome = 'failed', error = 'interrupted (process stopped)' WHERE ended_at IS NULL")
      .run(this.clock.now()).changes;
  }

  /** Deletes finished runs that ended more than `olderThanMs` ago, and the oldest beyond the newest `maxRuns`. */
  pruneHistory(olderThanMs: number, maxRuns: number): number {
    const old = this.db
      .prepare('DELETE FROM runs WHERE ended_at IS NOT NULL AND ended_at < ?')
      .run(this.clock.now() - olderThanMs).changes;
    const beyond = this.db
      .prepare(
        `DELETE FROM runs WHERE ended_at IS NOT NULL AND id IN (
           SELECT id FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY started_at DESC, id DESC) AS rn FROM runs) AS ranked
           WHERE rn > ?)`,
      )
      .run(maxRuns).changes;
    return old + beyond;
  }

  /** Keeps the newest `keepPerJob` runs of each job. */
  prune(keepPerJob: number): number {
    return this.db
      .prepare(
        `DELETE FROM runs WHERE id IN (
           SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY job ORDER BY started_at DESC, id DESC) AS rn
                           FROM runs) AS ranked WHERE rn > ?)`,
      )
      .run(keepPerJob).changes;
  }
}
