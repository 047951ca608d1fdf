import { spawn } from 'node:child_process';
import { statSync, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  StateLockedError,
  StateSchemaOutdatedError,
  StateSchemaTooNewError,
  openStateStore,
  runMigrations,
  type Migration,
} from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from './support.js';

let tmp: TempDir;
const clock = new FakeClock();

beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

describe('state file', () => {
  it.skipIf(process.platform === 'win32')('creates the folder, the file and its WAL with owner-only modes', () => {
    const file = tmp.file('nested/state/supply-sync.db');
    const store = openStateStore({ file, clock });
    store.kv.set('webhooks', 'secret', 'whsec_x');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(tmp.file('nested/state')).mode & 0o777).toBe(0o700);
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.lock`).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    store.close();
  });

  it('applies every migration once and records the version', () => {
    const file = tmp.file('s.db');
    const store = openStateStore({ file, clock });
    expect(store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    store.close();
    const again = openStateStore({ file, clock });
    const rows = again.db.prepare('SELECT version FROM schema_version').all();
    expect(rows).toHaveLength(MIGRATIONS.length);
    again.close();
  });

  it('migrates an existing file forward and keeps its data', () => {
    const file = tmp.file('old.db');
    const v1 = new Database(file);
    runMigrations(v1, clock, { target: 1 });
    v1.prepare("INSERT INTO kv (namespace, key, value, updated_at) VALUES ('flow', 'k', '\"kept\"', 1)").run();
    v1.close();

    const second: Migration = {
      version: 2,
      name: 'add a column',
      sql: 'ALTER TABLE kv ADD COLUMN note TEXT',
    };
    // Only the first released entry: a later real migration must not take the made-up one's place.
    const first = MIGRATIONS.filter((migration) => migration.version === 1);
    const db = new Database(file);
    expect(runMigrations(db, clock, { migrations: [...first, second] })).toEqual([2]);
    expect(db.prepare("SELECT value, note FROM kv WHERE key = 'k'").get()).toEqual({ value: '"kept"', note: null });
    expect(runMigrations(db, clock, { migrations: [...first, second] })).toEqual([]);
    db.close();
  });

  it('rolls back a failing migration as a whole', () => {
    const db = new Database(tmp.file('bad.db'));
    const latest = Math.max(...MIGRATIONS.map((migration) => migration.version));
    const broken: Migration = {
      version: latest + 1,
      name: 'broken',
      sql: 'CREATE TABLE half_done (x INTEGER); SELECT * FROM no_such_table;',
    };
    expect(() => runMigrations(db, clock, { migrations: [...MIGRATIONS, broken] })).toThrow(/no_such_table/);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").all();
    expect(tables).toEqual([]);
    expect(db.prepare('SELECT MAX(version) AS v FROM schema_version').get()).toEqual({ v: latest });
    db.close();
  });

  it('refuses a file from a newer release', () => {
    const file = tmp.file('newer.db');
    const db = new Database(file);
    runMigrations(db, clock);
    db.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 0)").run();
    db.close();
    expect(() => openStateStore({ file, clock })).toThrow(/state file .* has state schema version 99, newer than this release supports/);
  });
});

describe('single-daemon lock', () => {
  it('refuses a second opener and names the holder', () => {
    const file = tmp.file('s.db');
    const first = openStateStore({ file, clock });
    let caught: unknown;
    try {
      openStateStore({ file, clock });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StateLockedError);
    const locked = caught as StateLockedError;
    expect(locked.holder?.pid).toBe(process.pid);
    expect(locked.holder?.hostname).toBe(hostname());
    expect(locked.message).toContain(`pid ${process.pid}`);
    expect(locked.message).toContain(new Date(clock.now()).toISOString());
    first.close();
    const reopened = openStateStore({ file, clock });
    reopened.close();
  });

  it('is not blocked by the record a dead daemon left, whatever host or pid it names', () => {
    const file = tmp.file('s.db');
    openStateStore({ file, clock, lock: false }).close();
    const db = new Database(file);
    // As after a container was recreated: the old holder was pid 1 on another hostname.
    db.prepare("INSERT INTO daemon_lock (id, pid, hostname, token, started_at) VALUES (1, 1, 'old-container', 't', 0)").run();
    db.close();
    const store = openStateStore({ file, clock });
    expect(store.lockHolder()).toEqual({ pid: process.pid, hostname: hostname(), startedAt: clock.now(), kind: 'command' });
    store.close();
  });

  it('lets read-only opens in while the daemon holds the lock', () => {
    const file = tmp.file('s.db');
    const daemon = openStateStore({ file, clock });
    daemon.cursors.save({ stream: 'orders', watermarkMs: 5, passCursor: null, passSince: null, passMaxMs: null });
    const reader = openStateStore({ file, clock, readOnly: true });
    expect(reader.cursors.get('orders')?.watermarkMs).toBe(5);
    expect(reader.lockHolder()?.pid).toBe(process.pid);
    expect(() => reader.kv.set('a', 'b', 1)).toThrow(/readonly/i);
    reader.close();
    daemon.close();
  });

  it('read-only open of a missing file gives a clear error', () => {
    expect(() => openStateStore({ file: tmp.file('none.db'), clock, readOnly: true })).toThrow(/does not exist/);
  });

  it('a read-only open names an older, an unmigrated and a newer state file apart', () => {
    const older = tmp.file('older.db');
    const db = new Database(older);
    runMigrations(db, clock, { target: LATEST_SCHEMA_VERSION - 1 });
    db.close();
    const unmigrated = tmp.file('unmigrated.db');
    new Database(unmigrated).close();
    const newer = tmp.file('newer.db');
    const future = new Database(newer);
    runMigrations(future, clock);
    future.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 0)").run();
    future.close();
    const failure = (file: string): unknown => {
      try {
        openStateStore({ file, clock, readOnly: true }).close();
      } catch (error) {
        return error;
      }
      return null;
    };
    const old = failure(older);
    expect(old).toBeInstanceOf(StateSchemaOutdatedError);
    expect((old as StateSchemaOutdatedError).found).toBe(LATEST_SCHEMA_VERSION - 1);
    expect((old as Error).message).toContain('start the daemon once to migrate it');
    expect((failure(unmigrated) as StateSchemaOutdatedError).found).toBe(0);
    const tooNew = failure(newer);
    expect(tooNew).toBeInstanceOf(StateSchemaTooNewError);
    expect((tooNew as Error).message).toMatch(/state file .*newer\.db has state schema version 99, newer than/);
  });

  it('takes over the lock of a daemon that was killed', async () => {
    const file = tmp.file('s.db');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('${new URL('../../src/state/index.ts', import.meta.url).pathname}').then((m) => {
           m.openStateStore({ file: ${JSON.stringify(file)}, clock: { now: () => Date.now(), sleep: async () => {} } });
           process.stdout.write('locked\\n');
           setInterval(() => {}, 1000);
         });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('locked')) resolve();
        });
        child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
      });
      expect(() => openStateStore({ file, clock })).toThrow(new RegExp(`pid ${child.pid}\\b`));
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      const store = openStateStore({ file, clock });
      expect(store.lockHolder()?.pid).toBe(process.pid);
      store.close();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
