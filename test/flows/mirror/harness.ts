/** Real parts for the mirror's tests: the sandbox over HTTP, a SQLite state file, a SQLite or PostgreSQL target. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import type { RunResult } from '../../../src/engine/index.js';
import {
  createMirrorJob,
  mirrorOptionsSchema,
  type MirrorOptionsInput,
} from '../../../src/flows/mirror/index.js';
import { createDomain } from '../../../src/sandbox/domain/index.js';
import type { SandboxDomain } from '../../../src/sandbox/http/types.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';
import { SqlMirrorSink } from '../../../connectors/sql/index.js';
import { SqliteDriver, type SqlDriver } from '../../../src/kit/sql/index.js';
import { PgDriver } from '../../../src/kit/sql/pg-driver.js';
import { serviceProbe } from '../../connectors/services.js';
import { jobContext } from '../job-context.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
export type Target = 'sqlite' | 'pg';

export const PG_URL = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TABLE_PREFIX = 'bi_';

export const pgProbe = await serviceProbe('PostgreSQL', PG_URL, async () => {
  const admin = new PgDriver({ url: PG_URL, poolSize: 1 });
  try {
    await admin.query('SELECT 1 AS ok');
  } finally {
    await admin.close();
  }
});

export interface MirrorHarness {
  sandbox: Sandbox;
  /** Temporary folder of this harness (removed on close). */
  dir: string;
  /** The sandbox's domain, to simulate changes the API has no endpoint for (a record deleted in the app). */
  domain(): SandboxDomain;
  api: ApiClient;
  state: StateStore;
  driver: SqlDriver;
  sink: SqlMirrorSink;
  run(options?: MirrorOptionsInput, job?: string): Promise<RunResult>;
  rows(table: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function openTarget(
  target: Target,
  dir: string,
): Promise<{ driver: SqlDriver; dispose(): Promise<void> }> {
  if (target === 'sqlite') {
    const driver = new SqliteDriver(join(dir, 'bi.db'), { name: 'bi' });
    return { driver, dispose: () => driver.close() };
  }
  const schema = `ss_mirror_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new PgDriver({ url: PG_URL, poolSize: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.close();
  const driver = new PgDriver({ url: PG_URL, schema, name: 'bi' });
  return {
    driver,
    async dispose() {
      await driver.close();
      const cleanup = new PgDriver({ url: PG_URL, poolSize: 1 });
      await cleanup.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await cleanup.close();
    },
  };
}

export async function startMirrorHarness(
  options: { key?: 'buyer' | 'enterprise'; target?: Target } = {},
): Promise<MirrorHarness> {
  let domain: SandboxDomain | null = null;
  const sandbox = await startSandbox({
    createDomain: (services) => {
      domain = createDomain(services);
      return domain;
    },
    rateLimitOverrides: { all: { per_minute: 100_000 } },
  });
  const dir = await mkdtemp(join(tmpdir(), 'mirror-flow-'));
  const api = createApiClient({
    baseUrl: sandbox.baseUrl,
    apiKey: options.key === 'enterprise' ? sandbox.keys.enterprise : sandbox.keys.buyer,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50, deadlineMs: 20_000 },
  });
  const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
  const target = await openTarget(options.target ?? 'sqlite', dir);
  const sink = new SqlMirrorSink(target.driver, TABLE_PREFIX);
  return {
    sandbox,
    dir,
    domain() {
      if (domain === null) throw new Error('sandbox domain not created');
      return domain;
    },
    api,
    state,
    driver: target.driver,
    sink,
    run(jobOptions = {}, job = 'bi-mirror') {
      return createMirrorJob({ name: job, api, sink, options: mirrorOptionsSchema.parse(jobOptions) }).run(
        jobContext(state),
      );
    },
    async rows(table) {
      const { rows } = await target.driver.query(`SELECT * FROM ${TABLE_PREFIX}${table} ORDER BY id`);
      return rows as Record<string, unknown>[];
    },
    async close() {
      state.close();
      await api.close();
      await sandbox.close();
      await target.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export { jobContext };

/** The record column as an object (JSON text on SQLite, parsed JSONB on PostgreSQL). */
export function recordOf(row: Record<string, unknown>): Record<string, unknown> {
  const value = row['record'];
  return (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
}

/** Ids the API lists for a resource, read with the client's own page iterator (independent of the flow). */
export async function apiIds(items: AsyncIterable<{ id: string }>): Promise<string[]> {
  const ids: string[] = [];
  for await (const item of items) ids.push(item.id);
  return ids.sort();
}
