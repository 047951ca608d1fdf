/** The reads the notification events are derived from: finished runs and newly created dead letters. */
import { missingMappingOf, missingMappingSummary, type MissingMapping } from '../shared/missing-mapping.js';
import type { RunOutcome } from './runs.js';
import type { SyncSqlPort } from './sql-port.js';
import { cachedStatements, type StatementCache } from './statements.js';

export interface FinishedRun {
  readonly id: number;
  readonly job: string;
  readonly outcome: RunOutcome;
  readonly endedAt: number;
  readonly startedAt: number;
  readonly counts: Record<string, number>;
  readonly error: string | null;
}

export interface NewDeadLetters {
  /** The reason they share: for an unmapped value, the value and table without the line (see `missing`). */
  readonly reason: string;
  /** Set when the letters are held back for one value a mapping table lacks: what to add where. */
  readonly missing: MissingMapping | null;
  readonly count: number;
  readonly examples: readonly string[];
  readonly newest: number;
}

interface RunRow {
  id: number | string;
  job: string;
  outcome: RunOutcome;
  started_at: number | string;
  ended_at: number | string;
  counts: string | null;
  error: string | null;
}

const toRun = (row: RunRow): FinishedRun => ({
  id: Number(row.id),
  job: row.job,
  outcome: row.outcome,
  startedAt: Number(row.started_at),
  endedAt: Number(row.ended_at),
  counts: row.counts === null ? {} : (JSON.parse(row.counts) as Record<string, number>),
  error: row.error,
});

export class NotificationSources {
  private readonly db: StatementCache;

  constructor(db: SyncSqlPort) {
    this.db = cachedStatements(db);
  }

  maxRunId(): number {
    const row = this.db.prepare('SELECT MAX(id) AS id FROM runs').get() as { id: number | string | null };
    return Number(row.id ?? 0);
  }

  /**
   * The finished runs after `afterId` in id order, and the highest id below which every run has finished (a long
   * run of one job holds back no other job's runs, and is not passed over while it goes on).
   */
  runsAfter(afterId: number, limit = 500): { finished: FinishedRun[]; settledUpTo: number } {
    const rows = this.db
      .prepare('SELECT id, job, outcome, started_at, ended_at, counts, error FROM runs WHERE id > ? ORDER BY id LIMIT ?')
      .all(afterId, limit) as Array<RunRow & { ended_at: number | string | null }>;
    const finished: FinishedRun[] = [];
    let settledUpTo = afterId;
    let going = false;
    for (const row of rows) {
      if (row.ended_at === null || row.outcome === null) going = true;
      else finished.push(toRun(row));
      if (!going) settledUpTo = Number(row.id);
    }
    return { finished, settledUpTo };
  }

  /** The job's finished, not skipped runs up to and including `uptoId`, newest first. */
  previousRuns(job: string, uptoId: number, limit: number): FinishedRun[] {
    const rows = this.db
      .prepare(
        `SELECT id, job, outcome, started_at, ended_at, counts, error FROM runs
         WHERE job = ? AND id <= ? AND ended_at IS NOT NULL AND outcome <> 'skipped' ORDER BY id DESC LIMIT ?`,
      )
      .all(job, uptoId, limit) as RunRow[];
    return rows.map(toRun);
  }

  /** Finished runs of a job that ended in [from, to). */
  runsBetween(job: string, from: number, to: number): FinishedRun[] {
    const rows = this.db
      .prepare(
        `SELECT id, job, outcome, started_at, ended_at, counts, error FROM runs
         WHERE job = ? AND ended_at IS NOT NULL AND ended_at >= ? AND ended_at < ? ORDER BY id`,
      )
      .all(job, from, to) as RunRow[];
    return rows.map(toRun);
  }

  /**
   * Dead letters of a job first seen after `after`, grouped by reason, most frequent first. Letters a flow filed with
   * a missing mapping (`missing` in the record) are grouped by the value and table, whatever line each names.
   */
  deadLettersSince(job: string, after: number, open = false): NewDeadLetters[] {
    const rows = this.db
      .prepare(
        `SELECT reason, record_key, record, first_seen FROM dead_letters WHERE flow = ? AND first_seen > ?
         ${open ? "AND status IN ('open', 'retrying')" : ''} ORDER BY first_seen, id`,
      )
      .all(job, after) as Array<{
      reason: string;
      record_key: string;
      record: string | null;
      first_seen: number | string;
    }>;
    const groups = new Map<
      string,
      { reason: string; missing: MissingMapping | null; count: number; examples: string[]; newest: number }
    >();
    for (const row of rows) {
      const missing = missingMappingOf(row.record === null ? null : (JSON.parse(row.record) as unknown));
      const reason = missing === null ? row.reason : missingMappingSummary(missing);
      const key = missing === null ? `reason:${reason}` : `missing:${JSON.stringify(missing)}`;
      const group = groups.get(key) ?? { reason, missing, count: 0, examples: [], newest: 0 };
      group.count += 1;
      if (group.examples.length < 3) group.examples.push(row.record_key);
      group.newest = Math.max(group.newest, Number(row.first_seen));
      groups.set(key, group);
    }
    return [...groups.values()].sort((a, b) => b.count - a.count);
  }

  /** Where a flow wrote through a connector in [from, to): the ledger's external references (files, batch ids). */
  writtenBetween(flow: string, connector: string, from: number, to: number, limit = 20): string[] {
    const rows = this.db
      .prepare(
        `SELECT external_ref FROM ledger WHERE flow = ? AND connector = ? AND version = 'written'
         AND external_ref IS NOT NULL AND written_at >= ? AND written_at < ? ORDER BY written_at LIMIT ?`,
      )
      .all(flow, connector, from, to, limit) as Array<{ external_ref: string }>;
    return rows.map((row) => row.external_ref);
  }
}
