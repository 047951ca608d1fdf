import { randomBytes } from 'node:crypto';
import { PgDriver } from '../../src/kit/sql/pg-driver.js';
import { sharedSqlSuite } from './shared-sql-suite.js';
import { requireServices, serviceProbe } from './services.js';

const url = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ss_test_${process.pid}_${randomBytes(4).toString('hex')}`;

const probe = await serviceProbe('PostgreSQL', url, async () => {
  const admin = new PgDriver({ url, poolSize: 1 });
  try {
    await admin.query('SELECT 1 AS ok');
  } finally {
    await admin.close();
  }
});
requireServices(probe);

sharedSqlSuite(
  'shared SQL connector suite on PostgreSQL',
  probe.available
    ? {
        async open() {
          const admin = new PgDriver({ url, poolSize: 1 });
          await admin.query(`CREATE SCHEMA ${schema}`);
          await admin.close();
          return new PgDriver({ url, schema });
        },
        async dispose() {
          const admin = new PgDriver({ url, poolSize: 1 });
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await admin.close();
        },
      }
    : undefined,
  probe.reason,
);
