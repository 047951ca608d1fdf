import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MssqlDriver } from '../../connectors/sql/mssql-driver.js';
import { PgDriver } from '../../connectors/sql/pg-driver.js';
import { SqliteDriver } from '../../connectors/sql/sqlite-driver.js';
import { requireServices, serviceProbe, type ServiceProbe } from './services.js';
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

/**
 * SQL Server (sp_describe_undeclared_parameters / sp_describe_first_result_set) runs only where MSSQL_URL is set:
 * no SQL Server runs on the test machines and there is no other oracle for it, so without MSSQL_URL this path is
 * not tested at all.
 */
const mssqlUrl = process.env['MSSQL_URL'];
const database = `ss_preflight_${process.pid}_${randomBytes(4).toString('hex')}`;
const mssqlProbe: ServiceProbe =
  mssqlUrl === undefined
    ? { service: 'SQL Server', available: false, reason: 'MSSQL_URL is not set' }
    : await serviceProbe('SQL Server', mssqlUrl, async () => {
        const admin = new MssqlDriver(mssqlUrl);
        try {
          await admin.query('SELECT 1 AS ok');
        } finally {
          await admin.close();
        }
      });
if (mssqlUrl !== undefined) requireServices(mssqlProbe);
sharedPreflightSuite(
  'statement pre-flight on SQL Server (sp_describe_first_result_set)',
  mssqlProbe.available && mssqlUrl !== undefined
    ? {
        async open() {
          const admin = new MssqlDriver(mssqlUrl);
          await admin.query(`CREATE DATABASE [${database}]`);
          await admin.close();
          const parsed = new URL(mssqlUrl);
          parsed.pathname = `/${database}`;
          return new MssqlDriver(parsed.toString());
        },
        async dispose() {
          const admin = new MssqlDriver(mssqlUrl);
          await admin.query(`DROP DATABASE IF EXISTS [${database}]`);
          await admin.close();
        },
      }
    : undefined,
  mssqlProbe.reason,
);
