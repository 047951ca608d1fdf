/**
 * Schema version 4 moves the webhook events that wait for dispatch into inbox_pending. A state written by an
 * earlier release must come out of the migration with the same events pending and the same ones dispatched, on
 * SQLite and on PostgreSQL alike.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openStateStore, runMigrations, type StateStore } from '../../src/state/index.js';
import { PG_MIGRATIONS } from '../../src/state/postgres/migrations.js';
import { openPgStateStore } from '../../src/state/postgres/store.js';
import { adminQuery, PgScratchDatabases, probePostgres } from './backends.js';
import { FakeClock, tempDir } from './support.js';

const BEFORE = 3;
// Probed once, as the other PostgreSQL suites do: absent, the test is skipped with the reason, or fails under
// SUPPLY_SYNC_REQUIRE_SERVICES=1.
const pgSkipReason = await probePostgres();
const ROWS = [
  { id: 'evt_b', type: 'order.created', receivedAt: 2000, status: 'pending' },
  { id: 'evt_a', type: 'order.updated', receivedAt: 3000, status: 'pending' },
  { id: 'evt_c', type: 'order.created', receivedAt: 1000, status: 'dispatched' },
] as const;
const INSERT_V3 = 'INSERT INTO inbox (event_id, type, payload, received_at, status, dispatched_at) VALUES';

function expectMigrated(state: StateStore): void {
  expect(state.schemaVersion()).toBe(4);
  expect(state.inbox.counts()).toEqual({ pending: 2, dispatched: 1 });
  expect(state.inbox.pending().map((event) => event.eventId)).toEqual(['evt_b', 'evt_a']);
  expect(state.inbox.get('evt_c')?.status).toBe('dispatched');
  expect(Buffer.from(state.inbox.get('evt_a')?.payload ?? []).toString()).toBe('{"n":"evt_a"}');
  // Dedupe still holds for every stored event, dispatched or not.
  const again = state.inbox.insertMany(ROWS.map((row) => ({ eventId: row.id, type: row.type, payload: new Uint8Array() })));
  expect(again).toEqual([false, false, false]);
  state.inbox.markDispatched(state.inbox.pendingRefs().filter((ref) => ref.eventId === 'evt_b'));
  expect(state.inbox.pending().map((event) => event.eventId)).toEqual(['evt_a']);
}

describe('inbox migration to schema version 4', () => {
  const clock = new FakeClock();
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    // Last in, first out: the store closes before its file or database goes.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('keeps pending and dispatched events apart in a state file', () => {
    const tmp = tempDir();
    cleanups.push(() => tmp.remove());
    const file = tmp.file('state.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    expect(runMigrations(db, clock, { target: BEFORE })).toEqual([1, 2, 3]);
    const insert = db.prepare(`${INSERT_V3} (?, ?, ?, ?, ?, ?)`);
    for (const row of ROWS) {
      const dispatchedAt = row.status === 'dispatched' ? row.receivedAt + 1 : null;
      insert.run(row.id, row.type, Buffer.from(`{"n":"${row.id}"}`), row.receivedAt, row.status, dispatchedAt);
    }
    db.close();
    expect(MIGRATIONS.at(-1)?.version).toBe(4);
    const state = openStateStore({ file, clock });
    cleanups.push(() => state.close());
    expectMigrated(state);
    const columns = state.db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('inbox');
    expect(columns).toEqual(['event_id', 'type', 'payload', 'received_at']);
    const indexes = state.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'inbox' AND sql IS NOT NULL")
      .pluck()
      .all();
    expect(indexes).toEqual(['inbox_by_time']);
  });

  it.skipIf(pgSkipReason !== null)(
    `keeps pending and dispatched events apart in a PostgreSQL state${pgSkipReason === null ? '' : ` (skipped: ${pgSkipReason})`}`,
    async () => {
    const scratch = new PgScratchDatabases();
    cleanups.push(() => scratch.dropAll());
    const url = await scratch.create('ss_inbox_migration');
    await adminQuery('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)', [], url);
    for (const migration of PG_MIGRATIONS.filter((m) => m.version <= BEFORE)) {
      await adminQuery(migration.sql, [], url);
      await adminQuery('INSERT INTO schema_version VALUES ($1, $2, 0)', [migration.version, migration.name], url);
    }
    for (const row of ROWS) {
      const dispatchedAt = row.status === 'dispatched' ? row.receivedAt + 1 : null;
      await adminQuery(
        `${INSERT_V3} ($1, $2, $3, $4, $5, $6)`,
        [row.id, row.type, Buffer.from(`{"n":"${row.id}"}`), row.receivedAt, row.status, dispatchedAt],
        url,
      );
    }
    const state = openPgStateStore({ url, clock });
    cleanups.push(() => state.close());
    expectMigrated(state);
    const columns = await adminQuery(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'inbox' ORDER BY ordinal_position",
      [],
      url,
    );
    expect(columns.rows.map((row: { column_name: string }) => row.column_name)).toEqual([
      'event_id',
      'type',
      'payload',
      'received_at',
    ]);
    const indexes = await adminQuery(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'inbox' AND indexname <> 'inbox_pkey'",
      [],
      url,
    );
    expect(indexes.rows.map((row: { indexname: string }) => row.indexname)).toEqual(['inbox_by_time']);
  },
  );
});
