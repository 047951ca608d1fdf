import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort } from './sql-port.js';
import { cachedStatements, type StatementCache } from './statements.js';

export const INBOX_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface InboxEventInput {
  eventId: string;
  type: string;
  /** The raw, verified request body. */
  payload: Uint8Array;
}

/** What a dispatcher needs of a stored event: which it is and its type, not its payload. */
export interface InboxEventRef {
  eventId: string;
  type: string;
}

export interface InboxEvent extends InboxEventInput {
  receivedAt: number;
  status: 'pending' | 'dispatched';
  dispatchedAt: number | null;
}

interface InboxRow {
  event_id: string;
  type: string;
  payload: Buffer;
  received_at: number;
  status: 'pending' | 'dispatched';
  dispatched_at: number | null;
}

function fromRow(row: InboxRow): InboxEvent {
  return {
    eventId: row.event_id,
    type: row.type,
    payload: new Uint8Array(row.payload),
    receivedAt: row.received_at,
    status: row.status,
    dispatchedAt: row.dispatched_at,
  };
}

/** A Buffer over the same bytes (no copy): the receiver's payload is usually a Buffer already. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Webhook events, stored durably before the receiver answers 2xx; the event id is the dedupe key. */
export class InboxStore {
  // Prepared once per connection: the receiver inserts a group per commit and the dispatcher reads and marks a
  // batch per pass, and preparing costs more than running these statements.
  private readonly db: StatementCache;
  private insertGroup: ((events: readonly InboxEventInput[]) => boolean[]) | undefined;
  private markGroup: ((eventIds: readonly string[]) => void) | undefined;

  constructor(
    db: SyncSqlPort,
    private readonly clock: Clock,
  ) {
    this.db = cachedStatements(db);
  }

  /**
   * Stores a group of events in one transaction (one fsync for the group). Returns, per input, whether it was new;
   * a redelivered event id is ignored.
   */
  insertMany(events: readonly InboxEventInput[]): boolean[] {
    this.insertGroup ??= this.prepareInsertGroup();
    return this.insertGroup(events);
  }

  private prepareInsertGroup(): (events: readonly InboxEventInput[]) => boolean[] {
    const insert = this.db.prepare(
      `INSERT INTO inbox (event_id, type, payload, received_at, status) VALUES (?, ?, ?, ?, 'pending')
       ON CONFLICT DO NOTHING`,
    );
    return this.db.transaction((events: readonly InboxEventInput[]) => {
      const now = this.clock.now();
      return events.map((e) => insert.run(e.eventId, e.type, asBuffer(e.payload), now).changes > 0);
    });
  }

  get(eventId: string): InboxEvent | null {
    const row = this.db.prepare('SELECT * FROM inbox WHERE event_id = ?').get(eventId) as InboxRow | undefined;
    return row ? fromRow(row) : null;
  }

  pending(limit = 100): InboxEvent[] {
    const rows = this.db
      .prepare("SELECT * FROM inbox WHERE status = 'pending' ORDER BY received_at, event_id LIMIT ?")
      .all(limit) as InboxRow[];
    return rows.map(fromRow);
  }

  /** The pending events' ids and types, oldest first: what a dispatch pass reads, without the payloads. */
  pendingRefs(limit = 100): InboxEventRef[] {
    const rows = this.db
      .prepare(
        "SELECT event_id, type FROM inbox WHERE status = 'pending' ORDER BY received_at, event_id LIMIT ?",
      )
      .all(limit) as Array<Pick<InboxRow, 'event_id' | 'type'>>;
    return rows.map((row) => ({ eventId: row.event_id, type: row.type }));
  }

  markDispatched(eventIds: readonly string[]): void {
    this.markGroup ??= this.prepareMarkGroup();
    this.markGroup(eventIds);
  }

  private prepareMarkGroup(): (eventIds: readonly string[]) => void {
    const update = this.db.prepare(
      "UPDATE inbox SET status = 'dispatched', dispatched_at = ? WHERE event_id = ? AND status = 'pending'",
    );
    return this.db.transaction((eventIds: readonly string[]) => {
      const now = this.clock.now();
      for (const id of eventIds) update.run(now, id);
    });
  }

  /** Deletes dispatched events older than the retention (at least 30 days, so redeliveries stay deduplicated). */
  prune(retentionMs = INBOX_RETENTION_MS): number {
    const keep = Math.max(retentionMs, INBOX_RETENTION_MS);
    return this.db
      .prepare("DELETE FROM inbox WHERE status = 'dispatched' AND received_at < ?")
      .run(this.clock.now() - keep).changes;
  }

  counts(): { pending: number; dispatched: number } {
    const rows = this.db.prepare('SELECT status, COUNT(*) AS n FROM inbox GROUP BY status').all() as Array<{
      status: string;
      n: number;
    }>;
    const byStatus = new Map(rows.map((r) => [r.status, r.n]));
    return { pending: byStatus.get('pending') ?? 0, dispatched: byStatus.get('dispatched') ?? 0 };
  }
}
