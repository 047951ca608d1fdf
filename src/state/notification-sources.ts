/** The reads the notification events are derived from: finished runs and newly created dead letters. */
import { addMoney } from '../shared/decimal.js';
import { heldBackLabel, heldBackMoney } from '../shared/held-back-record.js';
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
  /** Up to 3 of them by their own numbers (an invoice number rather than an internal id). */
  readonly examples: readonly string[];
  /** Journal lines they hold and the total of their debit side in ILS; 0 and null for records without lines. */
  readonly lines: number;
  readonly total: string | null;
  readonly newest: number;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

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

  /**
   * The job's failed runs in a row up to and including `uptoId`: back to its last run that did not fail (or to the
   * first run kept), however many, with the first of them. Skipped runs neither fail nor end the streak.
   */
  failureStreak(job: string, uptoId: number): { count: number; first: FinishedRun | null } {
    const good = this.db
      .prepare(
        `SELECT MAX(id) AS id FROM runs WHERE job = ? AND id <= ? AND ended_at IS NOT NULL
         AND outcome NOT IN ('failed', 'skipped')`,
      )
      .get(job, uptoId) as { id: number | string | null };
    const after = Number(good.id ?? 0);
    const rows = this.db
      .prepare(
        `SELECT id, job, outcome, started_at, ended_at, counts, error FROM runs
         WHERE job = ? AND id > ? AND id <= ? AND outcome = 'failed' ORDER BY id`,
      )
      .all(job, after, uptoId) as RunRow[];
    const first = rows[0];
    return { count: rows.length, first: first === undefined ? null : toRun(first) };
  }

  /** The job's last finished run that was not skipped, or null. */
  lastRun(job: string): FinishedRun | null {
    const row = this.db
      .prepare(
        `SELECT id, job, outcome, started_at, ended_at, counts, error FROM runs
         WHERE job = ? AND ended_at IS NOT NULL AND outcome <> 'skipped' ORDER BY id DESC LIMIT 1`,
      )
      .get(job) as RunRow | undefined;
    return row === undefined ? null : toRun(row);
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
    const groups = new Map<string, Writable<NewDeadLetters> & { examples: string[] }>();
    for (const row of rows) {
      const record = row.record === null ? null : (JSON.parse(row.record) as unknown);
      const missing = missingMappingOf(record);
      const reason = missing === null ? row.reason : missingMappingSummary(missing);
      const key = missing === null ? `reason:${reason}` : `missing:${JSON.stringify(missing)}`;
      const group = groups.get(key) ?? { reason, missing, count: 0, examples: [], lines: 0, total: null, newest: 0 };
      const money = heldBackMoney(record);
      group.count += 1;
      group.lines += money.lines;
      if (money.total !== null) group.total = addMoney(group.total ?? '0.00', money.total);
      if (group.examples.length < 3) group.examples.push(heldBackLabel(row.record_key, record));
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
