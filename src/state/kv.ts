import type { Clock } from '../shared/clock.js';
import type { SyncSqlPort } from './sql-port.js';
import { cachedStatements, type StatementCache } from './statements.js';

/** Small per-flow values (a webhook secret, a last-seen marker), JSON-encoded. */
export class KeyValueStore {
  private readonly db: StatementCache;

  constructor(
    db: SyncSqlPort,
    private readonly clock: Clock,
  ) {
    this.db = cachedStatements(db);
  }

  get(namespace: string, key: string): unknown {
    const row = this.db.prepare('SELECT value FROM kv WHERE namespace = ? AND key = ?').get(namespace, key) as
      | { value: string }
      | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as unknown);
  }

  set(namespace: string, key: string, value: unknown): void {
    this.setJson(namespace, key, JSON.stringify(value ?? null));
  }

  /** Stores a value the caller has already serialized: `json` must be one JSON value. */
  setJson(namespace: string, key: string, json: string): void {
    this.db
      .prepare(
        `INSERT INTO kv (namespace, key, value, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(namespace, key, json, this.clock.now());
  }

  delete(namespace: string, key: string): boolean {
    return this.db.prepare('DELETE FROM kv WHERE namespace = ? AND key = ?').run(namespace, key).changes > 0;
  }

  keys(namespace: string): string[] {
    const rows = this.db.prepare('SELECT key FROM kv WHERE namespace = ? ORDER BY key').all(namespace) as Array<{
      key: string;
    }>;
    return rows.map((r) => r.key);
  }
}

/** Content hashes per (flow, key), for snapshot diffs such as a 100,000-SKU catalog. */
export class HashStore {
  private readonly db: StatementCache;

  constructor(
    db: SyncSqlPort,
    private readonly clock: Clock,
  ) {
    this.db = cachedStatements(db);
  }

  /** Loads every hash of a flow in one scan. */
  all(flow: string): Map<string, string> {
    const map = new Map<string, string>();
    const rows = this.db.prepare('SELECT key, hash FROM hashes WHERE flow = ?').raw().all(flow) as Array<
      [string, string]
    >;
    for (const [key, hash] of rows) map.set(key, hash);
    return map;
  }

  get(flow: string, key: string): string | undefined {
    const row = this.db.prepare('SELECT hash FROM hashes WHERE flow = ? AND key = ?').get(flow, key) as
      | { hash: string }
      | undefined;
    return row?.hash;
  }

  /** Upserts many hashes; call inside a transaction (or let this open one) so it is one commit. */
  setMany(flow: string, entries: Iterable<readonly [key: string, hash: string]>): number {
    const upsert = this.db.prepare(
      `INSERT INTO hashes (flow, key, hash, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (flow, key) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
    );
    return this.db.transaction(() => {
      const now = this.clock.now();
      let n = 0;
      for (const [key, hash] of entries) n += upsert.run(flow, key, hash, now).changes;
      return n;
    })();
  }

  deleteMany(flow: string, keys: Iterable<string>): number {
    const del = this.db.prepare('DELETE FROM hashes WHERE flow = ? AND key = ?');
    return this.db.transaction(() => {
      let n = 0;
      for (const key of keys) n += del.run(flow, key).changes;
      return n;
    })();
  }

  /** Every flow holding at least one hash. */
  flows(): string[] {
    const rows = this.db.prepare('SELECT DISTINCT flow FROM hashes').raw().all() as Array<[string]>;
    return rows.map(([flow]) => flow);
  }

  count(flow: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM hashes WHERE flow = ?').get(flow) as { n: number }).n;
  }
}
