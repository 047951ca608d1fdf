/**
 * Reads the daemon's run history after a kill: which jobs had a run started and not finished at the moment the
 * process died. Those are the kill points that count for a flow; a kill during start-up hit no run.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

export class RunWatcher {
  #seenId = 0;

  constructor(private readonly stateFile: string) {}

  /** Jobs with a run started since the last `cutOffRuns` call and not yet finished (does not move the mark). */
  openRuns(): string[] {
    return this.#read((db) => {
      const rows = db
        .prepare('SELECT DISTINCT job FROM runs WHERE id > ? AND ended_at IS NULL')
        .all(this.#seenId) as { job: string }[];
      return rows.map((row) => row.job);
    });
  }

  /** Median length of finished runs of a job, for choosing kill delays inside a run. */
  typicalRunMs(job: string): number | null {
    return this.#read((db) => {
      const rows = db
        .prepare(
          'SELECT ended_at - started_at AS ms FROM runs WHERE job = ? AND ended_at IS NOT NULL AND outcome != ? ORDER BY ms',
        )
        .all(job, 'failed') as { ms: number }[];
      return rows[Math.floor(rows.length / 2)]?.ms ?? null;
    }, null);
  }

  #read<T>(read: (db: Database.Database) => T, empty: T): T;
  #read(read: (db: Database.Database) => string[]): string[];
  #read<T>(read: (db: Database.Database) => T, empty?: T): T | string[] {
    if (!existsSync(this.stateFile)) return empty ?? [];
    const db = new Database(this.stateFile, { readonly: true, fileMustExist: true });
    try {
      const hasRuns = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get();
      return hasRuns === undefined ? (empty ?? []) : read(db);
    } finally {
      db.close();
    }
  }

  /** Jobs with a run cut off since the last call (started after it, still without an end). */
  cutOffRuns(): string[] {
    return this.#read((db) => {
      const rows = db
        .prepare('SELECT id, job, ended_at FROM runs WHERE id > ? ORDER BY id')
        .all(this.#seenId) as { id: number; job: string; ended_at: number | null }[];
      for (const row of rows) this.#seenId = Math.max(this.#seenId, row.id);
      return [...new Set(rows.filter((row) => row.ended_at === null).map((row) => row.job))];
    });
  }

  /** Resolves when a run has started (true) or after `timeoutMs` / the child's exit (false). */
  async waitForRun(isAlive: () => boolean, timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until && isAlive()) {
      if (this.openRuns().length > 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    return false;
  }
}
