import type Database from 'better-sqlite3';
import type { WriteWithoutSync } from './runs.js';

/**
 * Commits one write with synchronous=NORMAL on a FULL connection, then restores the level. The safety level
 * cannot change inside a transaction (the caller checks), and NORMAL is only crash-safe in WAL mode.
 */
export function sqliteWriteWithoutSync(db: Database.Database): WriteWithoutSync {
  return (write) => {
    if (db.inTransaction || db.pragma('journal_mode', { simple: true }) !== 'wal') return write();
    const level = db.pragma('synchronous', { simple: true }) as number;
    db.pragma('synchronous = NORMAL');
    try {
      return write();
    } finally {
      db.pragma(`synchronous = ${level}`);
    }
  };
}
