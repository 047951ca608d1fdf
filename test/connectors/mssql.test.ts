import { randomBytes } from 'node:crypto';
import { MssqlDriver } from '../../src/kit/sql/mssql-driver.js';
import { sharedPreflightSuite } from './shared-preflight-suite.js';
import { sharedSqlSuite } from './shared-sql-suite.js';
import { requireServices, serviceProbe, type ServiceProbe } from './services.js';

/** SQL Server runs only where MSSQL_URL is set: mssql://user:password@host:port/master?trustServerCertificate=true */
const url = process.env['MSSQL_URL'];
const database = `ss_test_${process.pid}_${randomBytes(4).toString('hex')}`;

function withDatabase(base: string, name: string): string {
  const parsed = new URL(base);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

const probe: ServiceProbe =
  url === undefined
    ? { service: 'SQL Server', available: false, reason: 'MSSQL_URL is not set' }
    : await serviceProbe('SQL Server', url, async () => {
        const admin = new MssqlDriver(url);
        try {
          await admin.query('SELECT 1 AS ok');
        } finally {
          await admin.close();
        }
      });
if (url !== undefined) requireServices(probe);

sharedSqlSuite(
  'shared SQL connector suite on SQL Server',
  probe.available && url !== undefined
    ? {
        async open() {
          const admin = new MssqlDriver(url);
          await admin.query(`CREATE DATABASE [${database}]`);
          await admin.close();
          return new MssqlDriver(withDatabase(url, database));
        },
        async dispose() {
          const admin = new MssqlDriver(url);
          await admin.query(
            `IF DB_ID(N'${database}') IS NOT NULL BEGIN
               ALTER DATABASE [${database}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [${database}];
             END`,
          );
          await admin.close();
        },
      }
    : undefined,
  probe.reason,
);

/**
 * The statement pre-flight (sp_describe_undeclared_parameters / sp_describe_first_result_set). No SQL Server runs
 * on the test machines and there is no other oracle for these procedures, so without MSSQL_URL this path is not
 * tested at all.
 */
const preflightDatabase = `ss_preflight_${process.pid}_${randomBytes(4).toString('hex')}`;
sharedPreflightSuite(
  'statement pre-flight on SQL Server (sp_describe_first_result_set)',
  probe.available && url !== undefined
    ? {
        async open() {
          const admin = new MssqlDriver(url);
          await admin.query(`CREATE DATABASE [${preflightDatabase}]`);
          await admin.close();
          return new MssqlDriver(withDatabase(url, preflightDatabase));
        },
        async dispose() {
          const admin = new MssqlDriver(url);
          await admin.query(`DROP DATABASE IF EXISTS [${preflightDatabase}]`);
          await admin.close();
        },
      }
    : undefined,
  probe.reason,
);
