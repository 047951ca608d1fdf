import type { Clock } from '../shared/clock.js';
import { missingMappingOf } from '../shared/missing-mapping.js';
import type { SyncSqlPort } from './sql-port.js';
import { cachedStatements, optional, type StatementCache } from './statements.js';

/** open: waiting for a fix; retrying: queued for the flow's next run; resolved: a retry succeeded. */
export type DeadLetterStatus = 'open' | 'retrying' | 'discarded' | 'resolved';

export interface DeadLetter {
  id: number;
  flow: string;
  recordKey: string;
  record: unknown;
  reason: string;
  firstSeen: number;
  lastSeen: number;
  attempts: number;
  status: DeadLetterStatus;
}

interface DeadLetterRow {
  id: number;
  flow: string;
  record_key: string;
  record: string;
  reason: string;
  first_seen: number;
  last_seen: number;
  attempts: number;
  status: DeadLetterStatus;
}

function fromRow(row: DeadLetterRow): DeadLetter {
  return {
    id: row.id,
    flow: row.flow,
    recordKey: row.record_key,
    record: JSON.parse(row.record) as unknown,
    reason: row.reason,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    attempts: row.attempts,
    status: row.status,
  };
}

/** The table and value a flow named as missing when it filed the letter (`missing` in its record). */
export interface MissingEntry {
  readonly table: string;
  readonly key: string;
}

export interface FlowTarget {
  flow: string;
  reason?: string | undefined;
  missing?: MissingEntry | undefined;
  /** Only these letters (those that matched when the command was asked): letters filed since are left alone. */
  ids?: readonly number[] | undefined;
}

/** One dead letter, or every open one of a flow (of one reason, of one missing mapping, when given). */
export type DeadLetterTarget = { id: number } | FlowTarget;

export interface DeadLetterFilter {
  flow?: string;
  /** Defaults to open and retrying. */
  statuses?: readonly DeadLetterStatus[];
  limit?: number;
}

/** The open letters of one flow held back for one reason. */
export interface DeadLetterReasonGroup {
  flow: string;
  reason: string;
  count: number;
  ids: number[];
  /** The record key of each of `ids`, in the same order. */
  keys: string[];
  /** Those of `ids` queued for retry. */
  retrying: number[];
}

export class DeadLetterStore {
  private readonly db: StatementCache;

  constructor(
    db: SyncSqlPort,
    private readonly clock: Clock,
  ) {
    this.db = cachedStatements(db);
  }

  /** Records a failed record; the same (flow, key) failing again updates reason, last_seen and attempts. */
  add(flow: string, recordKey: string, record: unknown, reason: string): DeadLetter {
    const now = this.clock.now();
    this.db
      .prepare(
        `INSERT INTO dead_letters (flow, record_key, record, reason, first_seen, last_seen, attempts, status)
         VALUES (?, ?, ?, ?, ?, ?, 1, 'open')
         ON CONFLICT (flow, record_key) DO UPDATE SET record = excluded.record, reason = excluded.reason,
           last_seen = excluded.last_seen, attempts = dead_letters.attempts + 1, status = 'open'`,
      )
      .run(flow, recordKey, JSON.stringify(record ?? null), reason, now, now);
    const letter = this.get(flow, recordKey);
    if (!letter) throw new Error('dead letter insert did not persist');
    return letter;
  }

  get(flow: string, recordKey: string): DeadLetter | null {
    const row = this.db
      .prepare('SELECT * FROM dead_letters WHERE flow = ? AND record_key = ?')
      .get(flow, recordKey) as DeadLetterRow | undefined;
    return row ? fromRow(row) : null;
  }

  byId(id: number): DeadLetter | null {
    const row = this.db.prepare('SELECT * FROM dead_letters WHERE id = ?').get(id) as DeadLetterRow | undefined;
    return row ? fromRow(row) : null;
  }

  list(filter: DeadLetterFilter = {}): DeadLetter[] {
    const statuses = filter.statuses ?? ['open', 'retrying'];
    const placeholders = statuses.map(() => '?').join(', ');
    const byFlow = filter.flow === undefined ? '' : 'AND flow = ?';
    const rows = this.db
      .prepare(
        `SELECT * FROM dead_letters WHERE status IN (${placeholders}) ${byFlow} ORDER BY first_seen, id LIMIT ?`,
      )
      .all(...statuses, ...optional(filter.flow), filter.limit ?? 1000) as DeadLetterRow[];
    return rows.map(fromRow);
  }

  /**
   * Queues dead letters for the flow's next run (by id, or every open one of a flow, or of a flow and a reason or a
   * missing mapping). Returns how many.
   */
  replay(target: DeadLetterTarget): number {
    if ('id' in target) {
      return this.db
        .prepare("UPDATE dead_letters SET status = 'retrying' WHERE id = ? AND status IN ('open', 'discarded')")
        .run(target.id).changes;
    }
    if (target.missing !== undefined || target.ids !== undefined) {
      return this.#each(target, ['open'], (id) => this.replay({ id }));
    }
    return this.db
      .prepare(
        `UPDATE dead_letters SET status = 'retrying' WHERE flow = ? AND status = 'open' ${target.reason === undefined ? '' : 'AND reason = ?'}`,
      )
      .run(target.flow, ...optional(target.reason)).changes;
  }

  discard(target: DeadLetterTarget): number {
    const now = this.clock.now();
    if ('id' in target) {
      return this.db
        .prepare(
          "UPDATE dead_letters SET status = 'discarded', last_seen = ? WHERE id = ? AND status IN ('open', 'retrying')",
        )
        .run(now, target.id).changes;
    }
    if (target.missing !== undefined || target.ids !== undefined) {
      return this.#each(target, ['open', 'retrying'], (id) => this.discard({ id }));
    }
    return this.db
      .prepare(
        `UPDATE dead_letters SET status = 'discarded', last_seen = ? WHERE flow = ? AND status IN ('open', 'retrying') ${target.reason === undefined ? '' : 'AND reason = ?'}`,
      )
      .run(now, target.flow, ...optional(target.reason)).changes;
  }

  /**
   * Applies `change` to each letter of the flow whose record names the target's missing mapping (and has its reason,
   * when given). The mapping is read from the record as the flows file it (missingMappingOf), the same on every
   * backend. Not one statement: callers that need it atomic run it in a state transaction, as the control actions do.
   */
  #each(target: FlowTarget, statuses: readonly DeadLetterStatus[], change: (id: number) => number): number {
    let changed = 0;
    for (const id of this.matchingIds(target, statuses)) changed += change(id);
    return changed;
  }

  /**
   * The letters of the flow in one of `statuses` that the target names: of its reason and missing mapping when
   * given, among its ids when given.
   */
  matchingIds(target: FlowTarget, statuses: readonly DeadLetterStatus[]): number[] {
    const rows = this.db
      .prepare(
        `SELECT id, record, reason FROM dead_letters WHERE flow = ? AND status IN (${statuses.map(() => '?').join(', ')}) ORDER BY id`,
      )
      .all(target.flow, ...statuses) as Array<{ id: number; record: string; reason: string }>;
    const bound = target.ids === undefined ? undefined : new Set(target.ids);
    return rows
      .filter((row) => {
        if (bound !== undefined && !bound.has(Number(row.id))) return false;
        if (target.reason !== undefined && row.reason !== target.reason) return false;
        if (target.missing === undefined) return true;
        const missing = missingMappingOf(JSON.parse(row.record) as unknown);
        return missing?.table === target.missing.table && missing.key === target.missing.key;
      })
      .map((row) => Number(row.id));
  }

  /** Marks a record done after a successful retry (or a later successful sync of the same key). */
  resolve(flow: string, recordKey: string): boolean {
    return (
      this.db
        .prepare(
          "UPDATE dead_letters SET status = 'resolved', last_seen = ? WHERE flow = ? AND record_key = ? AND status IN ('open', 'retrying')",
        )
        .run(this.clock.now(), flow, recordKey).changes > 0
    );
  }

  /** Deletes resolved and discarded letters last touched more than `olderThanMs` ago. */
  /**
   * Deletes resolved letters only. A discarded letter is a person's decision ("leave this record alone") that a
   * flow keeps reading: pruning it would let the record be written again.
   */
  pruneClosed(olderThanMs: number): number {
    return this.db
      .prepare("DELETE FROM dead_letters WHERE status = 'resolved' AND last_seen < ?")
      .run(this.clock.now() - olderThanMs).changes;
  }

  /** Open (and retrying) dead letters per flow. */
  countOpenByFlow(): Record<string, number> {
    const rows = this.db
      .prepare(
        "SELECT flow, COUNT(*) AS n FROM dead_letters WHERE status IN ('open', 'retrying') GROUP BY flow ORDER BY flow",
      )
      .all() as Array<{ flow: string; n: number }>;
    return Object.fromEntries(rows.map((row) => [row.flow, row.n]));
  }

  /** Open (and retrying) dead letters grouped by flow and reason, largest group first, with their ids and keys. */
  groupsByReason(limit = 50): DeadLetterReasonGroup[] {
    const rows = this.db
      .prepare(
        `SELECT flow, reason, id, record_key, status FROM dead_letters WHERE status IN ('open', 'retrying') ORDER BY flow, reason, id`,
      )
      .all() as Array<{ flow: string; reason: string; id: number; record_key: string; status: string }>;
    const groups = new Map<string, DeadLetterReasonGroup>();
    for (const row of rows) {
      const key = JSON.stringify([row.flow, row.reason]);
      const group = groups.get(key) ?? {
        flow: row.flow,
        reason: row.reason,
        count: 0,
        ids: [],
        keys: [],
        retrying: [],
      };
      group.count += 1;
      group.ids.push(Number(row.id));
      group.keys.push(row.record_key);
      if (row.status === 'retrying') group.retrying.push(Number(row.id));
      groups.set(key, group);
    }
    return [...groups.values()].sort((a, b) => b.count - a.count).slice(0, limit);
  }

  /** The most recent open dead letters of a flow, newest first. */
  latestOpen(flow: string, limit: number): DeadLetter[] {
    const rows = this.db
      .prepare(
        "SELECT * FROM dead_letters WHERE status IN ('open', 'retrying') AND flow = ? ORDER BY last_seen DESC, id DESC LIMIT ?",
      )
      .all(flow, limit) as DeadLetterRow[];
    return rows.map(fromRow);
  }

  countOpen(flow?: string): number {
    const row = this.db
      .prepare(
        `SELECT COUNT(*) AS n FROM dead_letters WHERE status IN ('open', 'retrying') ${flow === undefined ? '' : 'AND flow = ?'}`,
      )
      .get(...optional(flow)) as { n: number };
    return row.n;
  }
}
