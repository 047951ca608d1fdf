import { defineConfig } from 'vitest/config';
import { ciSizes, SHARED_TEST_OPTIONS } from './test/support/suites.js';

// `npm test`: every test, the long runs (test/support/suites.ts) at CI size. `npm run test:long` runs the long
// runs at full size (vitest.long.config.ts).

// SQL Server cannot run on every machine: its copy of the shared SQL connector suite runs only where MSSQL_URL
// points at one (SQLite and PostgreSQL run everywhere, the latter started by .ci/run).
const sqlServerSuite = 'test/connectors/mssql.test.ts';

export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: ['test/**/*.test.ts', 'connectors/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(process.env['MSSQL_URL'] ? [] : [sqlServerSuite])],
    env: ciSizes(),
  },
});
