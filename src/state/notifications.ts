import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort } from './sql-port.js';
import { cachedStatements, type StatementCache } from './statements.js';

/**
 * pending: waiting for its turn; sending: handed to the channel, not yet confirmed (after a crash it is tried again,
 * the one window where a message may arrive twice); sent: the server accepted it; failed: given up after its tries.
 */
export type NotificationStatus = 'pending' | 'sending' | 'sent' | 'failed';

export interface QueuedNotification {
  readonly id: number;
  readonly dedupKey: string;
  readonly channel: string;
  readonly event: string;
  /** The rendered message (JSON of what the channel sends), fixed when queued so a retry sends the same thing. */
  readonly message: string;
  readonly status: NotificationStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly lastError: string | null;
  readonly answer: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

interface Row {
  id: number | string;
  dedup_key: string;
  channel: string;
  event: string;
  message: string;
  status: NotificationStatus;
  attempts: number;
  next_attempt_at: number | string;
  last_error: string | null;
  answer: string | null;
  created_at: number | string;
  updated_at: number | string;
}

function fromRow(row: Row): QueuedNotification {
  return {
    id: Number(row.id),
    dedupKey: row.dedup_key,
    channel: row.channel,
    event: row.event,
    message: row.message,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: row.last_error,
    answer: row.answer,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export interface NotificationToQueue {
  /** Names the event occurrence: the same key for the same channel is queued once, however often it is derived. */
  readonly dedupKey: string;
  readonly channel: string;
  readonly event: string;
  readonly message: string;
}

export interface ChannelQueueSummary {
  readonly channel: string;
  readonly pending: number;
  readonly sent: number;
  readonly failed: number;
  readonly lastSentAt: number | null;
  /** The newest error of a message not sent yet or given up. */
  readonly lastError: string | null;
}

/** The notification queue: messages are queued in the transaction that records (or derives) their event. */
export class NotificationQueue {
  private readonly db: StatementCache;

  constructor(
    db: SyncSqlPort,
    private readonly clock: Clock,
  ) {
    this.db = cachedStatements(db);
  }

  /** Queues a message once per (dedup key, channel); true when it was new. */
  enqueue(item: NotificationToQueue): boolean {
    const now = this.clock.now();
    return (
      this.db
        .prepare(
          `INSERT INTO notifications (dedup_key, channel, event, message, next_attempt_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedup_key, channel) DO NOTHING`,
        )
        .run(item.dedupKey, item.channel, item.event, item.message, now, now, now).changes === 1
    );
  }

  has(dedupKey: string): boolean {
    return this.db.prepare('SELECT 1 AS found FROM notifications WHERE dedup_key = ? LIMIT 1').get(dedupKey) !== undefined;
  }

  /** Whether messages are queued under the key and every one of them is sent or given up. */
  settled(dedupKey: string): boolean {
    const row = this.db
      .prepare(
        `SELECT COUNT(*) AS queued, SUM(CASE WHEN status IN ('pending', 'sending') THEN 1 ELSE 0 END) AS open
         FROM notifications WHERE dedup_key = ?`,
      )
      .get(dedupKey) as { queued: number | string; open: number | string | null };
    return Number(row.queued) > 0 && Number(row.open ?? 0) === 0;
  }

  /**
   * Removes the key's messages not yet sent (another process sends them); returns how many. A message being sent
   * at this moment may still go out.
   */
  withdraw(dedupKey: string): number {
    return this.db
      .prepare(`DELETE FROM notifications WHERE dedup_key = ? AND status IN ('pending', 'sending')`)
      .run(dedupKey).changes;
  }

  /** The keys starting with `prefix` that have messages not yet sent or given up. */
  openKeys(prefix: string): string[] {
    const rows = this.db
      .prepare(
        `SELECT DISTINCT dedup_key FROM notifications WHERE status IN ('pending', 'sending')
         AND substr(dedup_key, 1, length(?)) = ? ORDER BY dedup_key`,
      )
      .all(prefix, prefix) as Array<{ dedup_key: string }>;
    return rows.map((row) => row.dedup_key);
  }

  /** Messages whose turn has come (a `sending` one was cut off by a crash and goes again), oldest first. */
  due(limit: number): QueuedNotification[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM notifications WHERE status IN ('pending', 'sending') AND next_attempt_at <= ?
         ORDER BY id LIMIT ?`,
      )
      .all(this.clock.now(), limit) as Row[];
    return rows.map(fromRow);
  }

  get(id: number): QueuedNotification | null {
    const row = this.db.prepare('SELECT * FROM notifications WHERE id = ?').get(id) as Row | undefined;
    return row === undefined ? null : fromRow(row);
  }

  /** Committed before the message is handed over, so a crash during the send is known to have been one. */
  markSending(id: number): void {
    this.update(`status = 'sending', attempts = attempts + 1`, id);
  }

  markSent(id: number, answer: string): void {
    this.update(`status = 'sent', answer = ?, last_error = NULL`, id, answer);
  }

  markRetry(id: number, error: string, nextAttemptAt: number): void {
    this.update(`status = 'pending', last_error = ?, next_attempt_at = ?`, id, error, nextAttemptAt);
  }

  markFailed(id: number, error: string): void {
    this.update(`status = 'failed', last_error = ?`, id, error);
  }

  /** Every message of a channel, newest first (for tests, `notify` and the status page). */
  list(channel?: string, limit = 100): QueuedNotification[] {
    const rows = (
      channel === undefined
        ? this.db.prepare('SELECT * FROM notifications ORDER BY id DESC LIMIT ?').all(limit)
        : this.db.prepare('SELECT * FROM notifications WHERE channel = ? ORDER BY id DESC LIMIT ?').all(channel, limit)
    ) as Row[];
    return rows.map(fromRow);
  }

  summary(): ChannelQueueSummary[] {
    const rows = this.db
      .prepare(
        `SELECT channel,
                SUM(CASE WHEN status IN ('pending', 'sending') THEN 1 ELSE 0 END) AS pending,
                SUM(CASE WHEN status = 'sent' THEN 1 ELSE 0 END) AS sent,
                SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed,
                MAX(CASE WHEN status = 'sent' THEN updated_at END) AS last_sent_at
         FROM notifications GROUP BY channel ORDER BY channel`,
      )
      .all() as Array<{ channel: string; pending: unknown; sent: unknown; failed: unknown; last_sent_at: unknown }>;
    return rows.map((row) => ({
      channel: row.channel,
      pending: Number(row.pending),
      sent: Number(row.sent),
      failed: Number(row.failed),
      lastSentAt: row.last_sent_at === null ? null : Number(row.last_sent_at),
      lastError: this.lastError(row.channel),
    }));
  }

  /** Drops sent and failed messages older than `before` (pending ones are kept whatever their age). */
  prune(before: number): number {
    return this.db
      .prepare(`DELETE FROM notifications WHERE status IN ('sent', 'failed') AND updated_at < ?`)
      .run(before).changes;
  }

  private lastError(channel: string): string | null {
    const row = this.db
      .prepare(
        `SELECT last_error FROM notifications WHERE channel = ? AND status <> 'sent' AND last_error IS NOT NULL
         ORDER BY updated_at DESC, id DESC LIMIT 1`,
      )
      .get(channel) as { last_error: string } | undefined;
    return row?.last_error ?? null;
  }

  private update(set: string, id: number, ...params: unknown[]): void {
    this.db
      .prepare(`UPDATE notifications SET ${set}, updated_at = ? WHERE id = ?`)
      .run(...params, this.clock.now(), id);
  }
}
