/**
 * The --state file: one SQLite database with the platform and domain snapshots and the stored blobs.
 *
 * The domain snapshot is stored in parts, one row per top-level field and, for large collections (records of
 * many rows), one row per CHUNK_ROWS rows: a single JSON text of a sandbox with a million journal lines is longer
 * than a JavaScript string can be. A file written as one 'domain' row (before parts) still loads.
 */
import Database from 'better-sqlite3';
import type { PlatformSnapshot } from './state.js';

/** Accounts created through the harness and their worlds' snapshots, kept as the composition gives them. */
export interface SavedWorlds {
  accounts: unknown[];
  worlds: Map<string, unknown>;
}

export interface SavedState {
  platform: PlatformSnapshot;
  domain: unknown;
  /** Empty in a file written before accounts could be created. */
  created: SavedWorlds;
  blobs: Map<string, Buffer>;
}

/** A created account's world is kept in parts as the demo world is, under `world:<account id>`. */
const WORLD_ROW = 'world:';

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
    if (!platform) return null;
    const blobs = new Map<string, Buffer>();
    for (const row of this.db.prepare('SELECT id, data FROM blob').all() as { id: string; data: Buffer }[]) {
      blobs.set(row.id, row.data);
    }
    return {
      platform: JSON.parse(platform.json) as PlatformSnapshot,
      domain: joinDomain(rows),
      created: savedWorlds(rows),
      blobs,
    };
  }

  /**
   * Writes the platform, the demo world and the accounts; of the accounts' worlds only those given, each replacing
   * its own rows (a world not given keeps what an earlier save wrote).
   */
  save(platform: PlatformSnapshot, domain: unknown, created?: SavedWorlds): void {
    const insert = this.db.prepare('INSERT INTO snapshot (name, json) VALUES (?, ?)');
    this.db.transaction(() => {
      // Every row but the worlds': names below 'world:' or from 'world;' (the next character) on.
      this.db.prepare("DELETE FROM snapshot WHERE name < 'world:' OR name >= 'world;'").run();
      insert.run('platform', JSON.stringify(platform));
      for (const [name, json] of splitDomain(domain)) insert.run(name, json);
      if (created === undefined || created.accounts.length === 0) return;
      insert.run('accounts', JSON.stringify(created.accounts));
      const dropWorld = this.db.prepare('DELETE FROM snapshot WHERE name = ? OR (name >= ? AND name < ?)');
      for (const [id, world] of created.worlds) {
        const base = `${WORLD_ROW}${id}`;
        // The world's own rows: `<base>` and `<base>.<part>`, which sort from `<base>.` to `<base>/`.
        dropWorld.run(base, `${base}.`, `${base}/`);
        for (const [name, json] of splitDomain(world, base)) insert.run(name, json);
      }
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

const CHUNK_ROWS = 50_000;
/** Part rows: `<base>.<field>` for a whole field, `<base>.<field>#<n>` for the n-th chunk of a large record. */
const partPattern = (base: string): RegExp =>
  new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(.+?)(?:#(\\d+))?$`);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function* splitDomain(domain: unknown, base = 'domain'): Generator<[string, string]> {
  if (!isRecord(domain)) {
    yield [base, JSON.stringify(domain ?? null)];
    return;
  }
  for (const [field, value] of Object.entries(domain)) {
    if (value === undefined || typeof value === 'function') continue;
    const keys = isRecord(value) ? Object.keys(value) : [];
    if (keys.length <= CHUNK_ROWS) {
      yield [`${base}.${field}`, JSON.stringify(value)];
      continue;
    }
    const record = value as Record<string, unknown>;
    for (let start = 0; start < keys.length; start += CHUNK_ROWS) {
      const chunk: Record<string, unknown> = {};
      for (const key of keys.slice(start, start + CHUNK_ROWS)) chunk[key] = record[key];
      yield [`${base}.${field}#${start / CHUNK_ROWS}`, JSON.stringify(chunk)];
    }
  }
}

function joinDomain(rows: readonly { name: string; json: string }[], base = 'domain'): unknown {
  const whole = rows.find((row) => row.name === base);
  if (whole) return JSON.parse(whole.json) as unknown;
  const pattern = partPattern(base);
  const parts = rows
    .map((row) => ({ row, match: pattern.exec(row.name) }))
    .filter((part) => part.match !== null);
  if (parts.length === 0) return undefined;
  const chunkOf = (match: RegExpExecArray | null) => Number(match?.[2] ?? -1);
  parts.sort((a, b) => chunkOf(a.match) - chunkOf(b.match));
  const domain: Record<string, unknown> = {};
  for (const { row, match } of parts) {
    const field = match?.[1] ?? '';
    const value = JSON.parse(row.json) as unknown;
    if (match?.[2] === undefined) domain[field] = value;
    else domain[field] = Object.assign((domain[field] as Record<string, unknown> | undefined) ?? {}, value);
  }
  return domain;
}

function savedWorlds(rows: readonly { name: string; json: string }[]): SavedWorlds {
  const accounts = rows.find((row) => row.name === 'accounts');
  const byWorld = new Map<string, { name: string; json: string }[]>();
  for (const row of rows) {
    if (!row.name.startsWith(WORLD_ROW)) continue;
    const id = row.name.slice(WORLD_ROW.length).split(/[.#]/, 1)[0] ?? '';
    const parts = byWorld.get(id);
    if (parts === undefined) byWorld.set(id, [row]);
    else parts.push(row);
  }
  const worlds = new Map<string, unknown>();
  for (const [id, parts] of byWorld) worlds.set(id, joinDomain(parts, `${WORLD_ROW}${id}`));
  return { accounts: accounts ? (JSON.parse(accounts.json) as unknown[]) : [], worlds };
}
