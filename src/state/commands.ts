import { cachedStatements, type StatementCache } from './statements.js';
import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort } from './sql-port.js';

/**
 * pending: waiting for the daemon; running: claimed, its effect under way (a run now); done and failed are final.
 * A command whose effect and completion fit in one transaction never stays `running`: a leader that dies leaves it
 * pending or done. One that runs a job is `running` for the run's length, and a new leader carries it out again.
 */
export type CommandStatus = 'pending' | 'running' | 'done' | 'failed';

export interface QueuedCommand {
  id: number;
  kind: string;
  args: Record<string, unknown>;
  /** The fingerprint of the config the command was given with; the daemon refuses one of another config. */
  fingerprint: string;
  requestedBy: string;
  requestedAt: number;
  status: CommandStatus;
  attempts: number;
  claimedAt: number | null;
  finishedAt: number | null;
  result: unknown;
  errorCode: string | null;
  error: string | null;
}

interface CommandRow {
  id: number;
  kind: string;
  args: string;
  fingerprint: string;
  requested_by: string;
  requested_at: number;
  status: CommandStatus;
  attempts: number;
  claimed_at: number | null;
  finished_at: number | null;
  result: string | null;
  error_code: string | null;
  error: string | null;
}

function fromRow(row: CommandRow): QueuedCommand {
  return {
    id: Number(row.id),
    kind: row.kind,
    args: JSON.parse(row.args) as Record<string, unknown>,
    fingerprint: row.fingerprint,
    requestedBy: row.requested_by,
    requestedAt: Number(row.requested_at),
    status: row.status,
    attempts: row.attempts,
    claimedAt: row.claimed_at === null ? null : Number(row.claimed_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    errorCode: row.error_code,
    error: row.error,
  };
}

export interface NewCommand {
  kind: string;
  args: Record<string, unknown>;
  fingerprint: string;
  requestedBy: string;
}

/** Operator commands for the daemon that holds the state: given by the CLI or the control API, drained by the leader. */
export class CommandStore {
  /** Each statement prepared once: a daemon polls the queue four times a second (an office, for every company). */
  private readonly db: StatementCache;

  constructor(
    port: SyncSqlPort,
    private readonly clock: Clock,
  ) {
    this.db = cachedStatements(port);
  }

  enqueue(command: NewCommand): number {
    const row = this.db
      .prepare(
        `INSERT INTO commands (kind, args, fingerprint, requested_by, requested_at) VALUES (?, ?, ?, ?, ?)
         RETURNING id`,
      )
      .get(command.kind, JSON.stringify(command.args), command.fingerprint, command.requestedBy, this.clock.now()) as {
      id: number;
    };
    return Number(row.id);
  }

  get(id: number): QueuedCommand | null {
    const row = this.db.prepare('SELECT * FROM commands WHERE id = ?').get(id) as CommandRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Commands not finished yet, oldest first. */
  unfinished(limit = 100): QueuedCommand[] {
    const rows = this.db
      .prepare("SELECT * FROM commands WHERE status IN ('pending', 'running') ORDER BY id LIMIT ?")
      .all(limit) as CommandRow[];
    return rows.map(fromRow);
  }

  /** The latest commands first; only those not finished yet with `unfinishedOnly`. */
  list(options: { unfinishedOnly?: boolean; limit?: number } = {}): QueuedCommand[] {
    const where = options.unfinishedOnly === true ? "WHERE status IN ('pending', 'running')" : '';
    const rows = this.db
      .prepare(`SELECT * FROM commands ${where} ORDER BY id DESC LIMIT ?`)
      .all(options.limit ?? 100) as CommandRow[];
    return rows.map(fromRow);
  }

  /** The pending commands of one kind, oldest first. */
  pendingOfKind(kind: string): QueuedCommand[] {
    const rows = this.db
      .prepare("SELECT * FROM commands WHERE status = 'pending' AND kind = ? ORDER BY id")
      .all(kind) as CommandRow[];
    return rows.map(fromRow);
  }

  /** Records a pending command `cancelled` (nothing was done); false when a daemon took it or it was finished. */
  cancel(id: number, by: string): boolean {
    return this.#finishPending(id, 'cancelled', `cancelled by ${by} before a daemon took it; nothing was done`);
  }

  /** Records `expired` each command pending for longer than `ttlMs`; returns their ids. */
  expirePending(ttlMs: number, why: string): number[] {
    const rows = this.db
      .prepare("SELECT id FROM commands WHERE status = 'pending' AND requested_at < ? ORDER BY id")
      .all(this.clock.now() - ttlMs) as Array<{ id: number }>;
    return rows.map((row) => Number(row.id)).filter((id) => this.#finishPending(id, 'expired', why));
  }

  #finishPending(id: number, code: string, message: string): boolean {
    return (
      this.db
        .prepare(
          "UPDATE commands SET status = 'failed', finished_at = ?, error_code = ?, error = ? WHERE id = ? AND status = 'pending'",
        )
        .run(this.clock.now(), code, message, id).changes > 0
    );
  }

  /** Marks a command taken (one more attempt); false when it was finished meanwhile. */
  claim(id: number): boolean {
    return (
      this.db
        .prepare(
          "UPDATE commands SET status = 'running', attempts = attempts + 1, claimed_at = ? WHERE id = ? AND status IN ('pending', 'running')",
        )
        .run(this.clock.now(), id).changes > 0
    );
  }

  /**
   * Takes a command again without counting an attempt, or gives a claim back (`release`: pending again): the
   * attempt was not the command's own failure (its daemon stopped cleanly, or was killed before its run began).
   */
  reclaimUncounted(id: number): boolean {
    return (
      this.db
        .prepare("UPDATE commands SET status = 'running', claimed_at = ? WHERE id = ? AND status IN ('pending', 'running')")
        .run(this.clock.now(), id).changes > 0
    );
  }

  release(id: number): boolean {
    return (
      this.db
        .prepare(
          "UPDATE commands SET status = 'pending', attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END WHERE id = ? AND status = 'running'",
        )
        .run(id).changes > 0
    );
  }

  /** Records the outcome; false when the command was finished already (it is never finished twice). */
  complete(id: number, result: unknown): boolean {
    return (
      this.db
        .prepare(
          "UPDATE commands SET status = 'done', finished_at = ?, result = ? WHERE id = ? AND status IN ('pending', 'running')",
        )
        .run(this.clock.now(), JSON.stringify(result ?? null), id).changes > 0
    );
  }

  fail(id: number, code: string, message: string): boolean {
    return (
      this.db
        .prepare(
          "UPDATE commands SET status = 'failed', finished_at = ?, error_code = ?, error = ? WHERE id = ? AND status IN ('pending', 'running')",
        )
        .run(this.clock.now(), code, message, id).changes > 0
    );
  }

  /** Deletes finished commands older than `olderThanMs`. */
  pruneFinished(olderThanMs: number): number {
    return this.db
      .prepare("DELETE FROM commands WHERE status IN ('done', 'failed') AND finished_at < ?")
      .run(this.clock.now() - olderThanMs).changes;
  }
}
