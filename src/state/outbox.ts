import { Buffer } from 'node:buffer';
import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort } from './sql-port.js';
import { optional } from './statements.js';

export type OutboxStatus = 'pending' | 'done' | 'dead';

export interface OutboxEntry {
  id: number;
  stream: string;
  idempotencyKey: string;
  method: string;
  path: string;
  /** The serialized request body, exactly as first stored; every attempt sends these bytes. */
  body: Uint8Array | null;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  status: OutboxStatus;
  /** The response, as JSON text, once done. */
  result: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface OutboxInput {
  stream: string;
  idempotencyKey: string;
  method: string;
  path: string;
  body: Uint8Array | null;
}

/** The same idempotency key was enqueued again with a different request. */
export class OutboxConflictError extends Error {
  readonly code = 'outbox_conflict';
  constructor(readonly idempotencyKey: string) {
    super(`outbox already holds a different request under idempotency key ${idempotencyKey}`);
    this.name = 'OutboxConflictError';
  }
}

interface OutboxRow {
  id: number;
  stream: string;
  idempotency_key: string;
  method: string;
  path: string;
  body: Buffer | null;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  status: OutboxStatus;
  result: string | null;
  created_at: number;
  updated_at: number;
}

function fromRow(row: OutboxRow): OutboxEntry {
  return {
    id: row.id,
    stream: row.stream,
    idempotencyKey: row.idempotency_key,
    method: row.method,
    path: row.path,
    body: row.body === null ? null : new Uint8Array(row.body),
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    status: row.status,
    result: row.result,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.from(a).equals(Buffer.from(b));
}

export class OutboxStore {
  constructor(
    private readonly db: SyncSqlPort,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores a write before its first attempt. Enqueueing the same key and request again returns the stored entry
   * (a restarted flow re-enqueues safely); the same key with another request is refused.
   */
  enqueue(input: OutboxInput): OutboxEntry {
    return this.db.transaction(() => {
      const existing = this.getByKey(input.idempotencyKey);
      if (existing) {
        const same =
          existing.method === input.method && existing.path === input.path && sameBytes(existing.body, input.body);
        if (!same) throw new OutboxConflictError(input.idempotencyKey);
        return existing;
      }
      const now = this.clock.now();
      const inserted = this.db
        .prepare(
          `INSERT INTO outbox (stream, idempotency_key, method, path, body, next_attempt_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .get(
          input.stream,
          input.idempotencyKey,
          input.method,
          input.path,
          input.body === null ? null : Buffer.from(input.body),
          now,
          now,
          now,
        );
      const created = this.get((inserted as { id: number }).id);
      if (!created) throw new Error('outbox insert did not persist');
      return created;
    })();
  }

  get(id: number): OutboxEntry | null {
    const row = this.db.prepare('SELECT * FROM outbox WHERE id = ?').get(id) as OutboxRow | undefined;
    return row ? fromRow(row) : null;
  }

  getByKey(idempotencyKey: string): OutboxEntry | null {
    const row = this.db.prepare('SELECT * FROM outbox WHERE idempotency_key = ?').get(idempotencyKey) as
      | OutboxRow
      | undefined;
    return row ? fromRow(row) : null;
  }

  /** Pending entries whose next attempt is due, oldest first. */
  due(options: { stream?: string; limit?: number } = {}): OutboxEntry[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ?
         ${options.stream === undefined ? '' : 'AND stream = ?'} ORDER BY next_attempt_at, id LIMIT ?`,
      )
      .all(this.clock.now(), ...optional(options.stream), options.limit ?? 100) as OutboxRow[];
    return rows.map(fromRow);
  }

  markDone(id: number, result: string): void {
    this.db
      .prepare(
        "UPDATE outbox SET status = 'done', result = ?, attempts = attempts + 1, last_error = NULL, updated_at = ? WHERE id = ?",
      )
      .run(result, this.clock.now(), id);
  }

  markFailed(id: number, error: string, next: { retryAt: number } | { dead: true }): void {
    const now = this.clock.now();
    if ('dead' in next) {
      this.db
        .prepare(
          "UPDATE outbox SET status = 'dead', attempts = attempts + 1, last_error = ?, updated_at = ? WHERE id = ?",
        )
        .run(error, now, id);
    } else {
      this.db
        .prepare(
          'UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, updated_at = ? WHERE id = ?',
        )
        .run(error, next.retryAt, now, id);
    }
  }

  /** Puts a dead entry back in the queue, keeping its key and body. */
  revive(id: number): boolean {
    return (
      this.db
        .prepare(
          "UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'dead'",
        )
        .run(this.clock.now(), this.clock.now(), id).changes > 0
    );
  }

  list(options: { status?: OutboxStatus; stream?: string; limit?: number } = {}): OutboxEntry[] {
    const conditions = [
      ...(options.status === undefined ? [] : ['status = ?']),
      ...(options.stream === undefined ? [] : ['stream = ?']),
    ];
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
    const rows = this.db
      .prepare(`SELECT * FROM outbox ${where} ORDER BY id LIMIT ?`)
      .all(...optional(options.status), ...optional(options.stream), options.limit ?? 1000) as OutboxRow[];
    return rows.map(fromRow);
  }

  depth(): { pending: number; dead: number } {
    const rows = this.db
      .prepare("SELECT status, COUNT(*) AS n FROM outbox WHERE status != 'done' GROUP BY status")
      .all() as Array<{ status: string; n: number }>;
    const byStatus = new Map(rows.map((r) => [r.status, r.n]));
    return { pending: byStatus.get('pending') ?? 0, dead: byStatus.get('dead') ?? 0 };
  }

  /** Deletes done entries older than `olderThanMs` (the API's idempotency window is 24 hours). */
  pruneDone(olderThanMs: number): number {
    return this.db
      .prepare("DELETE FROM outbox WHERE status = 'done' AND updated_at < ?")
      .run(this.clock.now() - olderThanMs).changes;
  }
}
