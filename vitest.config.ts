import { defineConfig } from 'vitest/config';

// SQL Server cannot run on every machine: its copy of the shared SQL connector suite runs only where MSSQL_URL
// points at one (SQLite and PostgreSQL run everywhere, the latter started by .ci/run).
const sqlServerSuite = 'test/connectors/mssql.test.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'connectors/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(process.env['MSSQL_URL'] ? [] : [sqlServerSuite])],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
