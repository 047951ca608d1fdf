import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PgDriver } from '../../src/kit/sql/pg-driver.js';
import { SqliteDriver } from '../../src/kit/sql/sqlite-driver.js';
import { requireServices, serviceProbe } from './services.js';
import { sharedPreflightSuite } from './shared-preflight-suite.js';

let dir: string | undefined;
sharedPreflightSuite(
  'statement pre-flight on SQLite (real file)',
  {
    async open() {
      dir = await mkdtemp(path.join(os.tmpdir(), 'supply-sync-preflight-'));
      return new SqliteDriver(path.join(dir, 'erp.sqlite'));
    },
    async dispose() {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  },
  '',
);

const pgUrl = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ss_preflight_${process.pid}_${randomBytes(4).toString('hex')}`;
const pgProbe = await serviceProbe('PostgreSQL', pgUrl, async () => {
  const admin = new PgDriver({ url: pgUrl, poolSize: 1 });
  try {
    await admin.query('SELECT 1 AS ok');
  } finally {
    await admin.close();
  }
});
requireServices(pgProbe);
sharedPreflightSuite(
  'statement pre-flight on PostgreSQL (protocol-level Parse/Describe)',
  pgProbe.available
    ? {
        async open() {
          const admin = new PgDriver({ url: pgUrl, poolSize: 1 });
          await admin.query(`CREATE SCHEMA ${schema}`);
          await admin.close();
          return new PgDriver({ url: pgUrl, schema });
        },
        async dispose() {
          const admin = new PgDriver({ url: pgUrl, poolSize: 1 });
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await admin.close();
        },
      }
    : undefined,
  pgProbe.reason,
);

// The SQL Server copy (sp_describe_undeclared_parameters / sp_describe_first_result_set) is in mssql.test.ts,
// which runs only where MSSQL_URL points at a server.
