import { randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import Database from 'better-sqlite3';
import type { Clock } from '../shared/clock.js';
import { prepareStateFile } from './file.js';

export interface LockHolder {
  pid: number;
  hostname: string;
  startedAt: number;
  /** A daemon, or a one-shot command (`sync`, `cursor reset`...) that lets go once it is done. */
  kind: LockHolderKind;
}

export type LockHolderKind = 'daemon' | 'command';

/** A second daemon tried to open a state file that a live daemon holds. */
export class StateLockedError extends Error {
  readonly code = 'state_locked';
  constructor(
    readonly file: string,
    readonly holder: LockHolder | null,
  ) {
    super(stateLockedMessage(file, holder, (ms) => new Date(ms).toISOString()));
    this.name = 'StateLockedError';
  }
}

/** What StateLockedError says, its holder's start shown by `time` (the caller's zone, where it knows one). */
export function stateLockedMessage(file: string, holder: LockHolder | null, time: (ms: number) => string): string {
  const who = holder
    ? `pid ${holder.pid} on host ${holder.hostname}, since ${time(holder.startedAt)}`
    : 'a process that is still starting';
  return (
    `state file ${file} is in use by another supply-sync daemon (${who}); stop it first, ` +
    'or use a read-only command such as `supply-sync status`'
  );
}

interface LockRow {
  pid: number;
  hostname: string;
  started_at: number;
  token: string;
}

export function readLockHolder(db: Database.Database): LockHolder | null {
  const row = db.prepare('SELECT pid, hostname, started_at, token FROM daemon_lock WHERE id = 1').get() as
    | LockRow
    | undefined;
  if (!row) return null;
  const kind = row.token.startsWith('daemon:') ? 'daemon' : 'command';
  return { pid: row.pid, hostname: row.hostname, startedAt: row.started_at, kind };
}

/** The holder row, or null while the holder has not written it yet (it may still be migrating). */
function holderIfReadable(db: Database.Database): LockHolder | null {
  try {
    return readLockHolder(db);
  } catch {
    return null;
  }
}

/** SQLite's answer when another connection's write held the state file past the busy timeout. */
export function isStateFileBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code === 'SQLITE_LOCKED');
}

export interface AcquiredLock {
  readonly token: string;
  /** The holder recorded by a daemon that died without releasing (its OS lock went with it). */
  readonly tookOverFrom: LockHolder | null;
  release(): void;
}

/**
 * The single-daemon lock is an OS-level lock: an exclusive SQLite transaction kept open on `<state>.lock`. The
 * kernel drops it when the process dies however it dies (kill -9 included), so there is no stale lock to guess
 * about, pids reused in containers or hostnames that change between containers do not matter. The holder's pid,
 * host and start time are recorded in the state file only to name it in the error a second daemon gets.
 */
export function acquireDaemonLock(
  db: Database.Database,
  file: string,
  clock: Clock,
  /** Work that needs the lock before the holder is recorded (migrations). */
  whileLocked: () => void,
  /** Recorded with the holder: a daemon waits out a one-shot command's hold, not another daemon's. */
  kind: LockHolderKind = 'command',
): AcquiredLock {
  const lockFile = `${file}.lock`;
  prepareStateFile(lockFile);
  const lockDb = new Database(lockFile, { timeout: 0 });
  try {
    lockDb.pragma('locking_mode = EXCLUSIVE');
    lockDb.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lockDb.close();
    if (isStateFileBusy(error)) throw new StateLockedError(file, holderIfReadable(db));
    throw error;
  }
  try {
    whileLocked();
  } catch (error) {
    lockDb.close();
    throw error;
  }
  const token = `${kind}:${randomUUID()}`;
  const tookOverFrom = readLockHolder(db);
  db.prepare(
    `INSERT INTO daemon_lock (id, pid, hostname, token, started_at) VALUES (1, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
       token = excluded.token, started_at = excluded.started_at`,
  ).run(process.pid, osHostname(), token, clock.now());
  return {
    token,
    tookOverFrom,
    release: () => {
      if (db.open) db.prepare('DELETE FROM daemon_lock WHERE id = 1 AND token = ?').run(token);
      if (lockDb.open) lockDb.close();
    },
  };
}
