/**
 * The state backends the shared state suite runs against: a SQLite file in a temporary folder, and a fresh
 * PostgreSQL database (created on the server PG_URL points at, dropped afterwards). PostgreSQL is skipped with the
 * reason when unreachable, and fails instead under SUPPLY_SYNC_REQUIRE_SERVICES=1 (CI).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Clock } from '../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { openPgStateStore } from '../../src/state/postgres/store.js';
import { requireServices, serviceProbe } from '../connectors/services.js';
import { tempDir, type TempDir } from './support.js';

export const PG_URL = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface StateBackendHarness {
  readonly name: 'sqlite' | 'postgres';
  /** Why the backend cannot run here, or null. */
  readonly skipReason: string | null;
  /** A fresh, empty state location for one test. */
  create(): Promise<void>;
  /** Opens the current location (again, to check what a restart sees). */
  open(clock: Clock, options?: { readOnly?: boolean }): StateStore;
  /** Where the current location is: the file, or the database URL. */
  where(): string;
  dispose(): Promise<void>;
}

export function sqliteHarness(): StateBackendHarness {
  let tmp: TempDir | undefined;
  const file = (): string => {
    if (tmp === undefined) throw new Error('create() first');
    return tmp.file('state.db');
  };
  return {
    name: 'sqlite',
    skipReason: null,
    create: () => {
      tmp = tempDir();
      return Promise.resolve();
    },
    open: (clock, options = {}) => openStateStore({ file: file(), clock, ...options }),
    where: file,
    dispose: () => {
      tmp?.remove();
      return Promise.resolve();
    },
  };
}

/** A URL for another database on the server PG_URL points at. */
export function databaseUrl(database: string, base = PG_URL): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates and drops scratch databases on the test server. */
export class PgScratchDatabases {
  readonly #created: string[] = [];

  async create(prefix = 'ss_state'): Promise<string> {
    const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    this.#created.push(name);
    return databaseUrl(name);
  }

  async dropAll(): Promise<void> {
    for (const name of this.#created.splice(0)) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

export async function adminQuery(sql: string, params: unknown[] = [], url = PG_URL): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

export async function probePostgres(): Promise<string | null> {
  const probe = await serviceProbe('PostgreSQL', PG_URL, async () => {
    await adminQuery('SELECT 1');
  });
  requireServices(probe);
  return probe.available ? null : probe.reason;
}

export async function postgresHarness(): Promise<StateBackendHarness> {
  const skipReason = await probePostgres();
  const scratch = new PgScratchDatabases();
  let url = '';
  return {
    name: 'postgres',
    skipReason,
    create: async () => {
      url = await scratch.create();
    },
    open: (clock, options = {}) => openPgStateStore({ url, clock, ...options }),
    where: () => url,
    dispose: () => scratch.dropAll(),
  };
}
