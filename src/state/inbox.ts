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

/** What a dispatcher needs of a stored event: which it is, its type and its key in inbox_pending, not its payload. */
export interface InboxEventRef {
  eventId: string;
  type: string;
  receivedAt: number;
}

/** A pending event by its key, as pendingRefs gave it. */
export type DispatchedEvent = Pick<InboxEventRef, 'eventId' | 'receivedAt'>;

export interface InboxEvent extends InboxEventInput {
  receivedAt: number;
  status: 'pending' | 'dispatched';
}

interface InboxRow {
  event_id: string;
  type: string;
  payload: Buffer;
  received_at: number;
  /** 1 while the event waits in inbox_pending (an integer, as SQLite and PostgreSQL both give it). */
  pending: number;
}

/** The inbox row with whether it is still waiting to be dispatched. */
const EVENT_COLUMNS = `i.event_id, i.type, i.payload, i.received_at,
  CASE WHEN EXISTS (SELECT 1 FROM inbox_pending p WHERE p.received_at = i.received_at AND p.event_id = i.event_id)
    THEN 1 ELSE 0 END AS pending`;

function fromRow(row: InboxRow): InboxEvent {
  return {
    eventId: row.event_id,
    type: row.type,
    payload: new Uint8Array(row.payload),
    receivedAt: row.received_at,
    status: Number(row.pending) === 1 ? 'pending' : 'dispatched',
  };
}

/** A Buffer over the same bytes (no copy): the receiver's payload is usually a Buffer already. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Webhook events, stored durably before the receiver answers 2xx; the event id is the dedupe key. An event waits
 * for dispatch as a small row of inbox_pending, deleted when dispatched, so the stored payload is written once.
 */
export class InboxStore {
  // Prepared once per connection: the receiver inserts a group per commit and the dispatcher reads and marks a
  // batch per pass, and preparing costs more than running these statements.
  private readonly db: StatementCache;
  private insertGroup: ((events: readonly InboxEventInput[]) => boolean[]) | undefined;
  private markGroup: ((events: readonly DispatchedEvent[]) => void) | undefined;

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
      'INSERT INTO inbox (event_id, type, payload, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    const enqueue = this.db.prepare('INSERT INTO inbox_pending (received_at, event_id, type) VALUES (?, ?, ?)');
    return this.db.transaction((events: readonly InboxEventInput[]) => {
      const now = this.clock.now();
      return events.map((e) => {
        const isNew = insert.run(e.eventId, e.type, asBuffer(e.payload), now).changes > 0;
        if (isNew) enqueue.run(now, e.eventId, e.type);
        return isNew;
      });
    });
  }

  get(eventId: string): InboxEvent | null {
    const row = this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM inbox i WHERE i.event_id = ?`).get(eventId) as
      | InboxRow
      | undefined;
    return row ? fromRow(row) : null;
  }

  pending(limit = 100): InboxEvent[] {
    const rows = this.db
      .prepare(
        `SELECT i.event_id, i.type, i.payload, i.received_at, 1 AS pending FROM inbox_pending p
         JOIN inbox i ON i.event_id = p.event_id ORDER BY p.received_at, p.event_id LIMIT ?`,
      )
      .all(limit) as InboxRow[];
    return rows.map(fromRow);
  }

  /** The pending events' ids and types, oldest first: what a dispatch pass reads, without the payloads. */
  pendingRefs(limit = 100): InboxEventRef[] {
    const rows = this.db
      .prepare('SELECT event_id, type, received_at FROM inbox_pending ORDER BY received_at, event_id LIMIT ?')
      .all(limit) as Array<Pick<InboxRow, 'event_id' | 'type' | 'received_at'>>;
    return rows.map((row) => ({ eventId: row.event_id, type: row.type, receivedAt: Number(row.received_at) }));
  }

  /** Ends the wait of events a dispatch pass read (pendingRefs); one no longer pending changes nothing. */
  markDispatched(events: readonly DispatchedEvent[]): void {
    this.markGroup ??= this.prepareMarkGroup();
    this.markGroup(events);
  }

  private prepareMarkGroup(): (events: readonly DispatchedEvent[]) => void {
    const remove = this.db.prepare('DELETE FROM inbox_pending WHERE received_at = ? AND event_id = ?');
    return this.db.transaction((events: readonly DispatchedEvent[]) => {
      for (const event of events) remove.run(event.receivedAt, event.eventId);
    });
  }

  /** Deletes dispatched events older than the retention (at least 30 days, so redeliveries stay deduplicated). */
  prune(retentionMs = INBOX_RETENTION_MS): number {
    const keep = Math.max(retentionMs, INBOX_RETENTION_MS);
    return this.db
      .prepare(
        `DELETE FROM inbox WHERE received_at < ? AND NOT EXISTS
         (SELECT 1 FROM inbox_pending p WHERE p.received_at = inbox.received_at AND p.event_id = inbox.event_id)`,
      )
      .run(this.clock.now() - keep).changes;
  }

  counts(): { pending: number; dispatched: number } {
    const row = this.db
      .prepare('SELECT (SELECT COUNT(*) FROM inbox) AS stored, (SELECT COUNT(*) FROM inbox_pending) AS pending')
      .get() as { stored: number | string; pending: number | string };
    const pending = Number(row.pending);
    return { pending, dispatched: Number(row.stored) - pending };
  }
}
