/** The --state file: one SQLite database with the platform and domain snapshots and the stored blobs. */
import Database from 'better-sqlite3';
import type { PlatformSnapshot } from './state.js';

export interface SavedState {
  platform: PlatformSnapshot;
  domain: unknown;
  blobs: Map<string, Buffer>;
}

export class StateFile {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS snapshot (name TEXT PRIMARY KEY, json TEXT NOT NULL);' +
        'CREATE TABLE IF NOT EXISTS blob (id TEXT PRIMARY KEY, data BLOB NOT NULL);',
    );
  }

  load(): SavedState | null {
    const rows = this.db.prepare('SELECT name, json FROM snapshot').all() as { name: string; json: string }[];
    const platform = rows.find((row) => row.name === 'platform');
    const domain = rows.find((row) => row.name === 'domain');
    if (!platform) return null;
    const blobs = new Map<string, Buffer>();
    for (const row of this.db.prepare('SELECT id, data FROM blob').all() as { id: string; data: Buffer }[]) {
      blobs.set(row.id, row.data);
    }
    return {
      platform: JSON.parse(platform.json) as PlatformSnapshot,
      domain: domain ? (JSON.parse(domain.json) as unknown) : undefined,
      blobs,
    };
  }

  save(platform: PlatformSnapshot, domain: unknown): void {
    const upsert = this.db.prepare(
      'INSERT INTO snapshot (name, json) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET json = excluded.json',
    );
    this.db.transaction(() => {
      upsert.run('platform', JSON.stringify(platform));
      upsert.run('domain', JSON.stringify(domain ?? null));
    })();
  }

  putBlob(id: string, data: Buffer): void {
    this.db.prepare('INSERT OR REPLACE INTO blob (id, data) VALUES (?, ?)').run(id, data);
  }

  deleteBlob(id: string): void {
    this.db.prepare('DELETE FROM blob WHERE id = ?').run(id);
  }

  clearBlobs(): void {
    this.db.prepare('DELETE FROM blob').run();
  }

  close(): void {
    this.db.close();
  }
}
