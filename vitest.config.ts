import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongRunsFirst } from './test/support/sequencer.js';
import { ciSizes, DOCKER_TESTS, LONG_ONLY, SHARED_TEST_OPTIONS } from './test/support/suites.js';

// `npm test`: every test but the fault convergence and soak runs, the crash and kill -9 runs at CI size (see
// test/support/suites.ts). `npm run test:long` runs the long runs at full size (vitest.long.config.ts).

// SQL Server cannot run on every machine: its copy of the shared SQL connector suite runs only where MSSQL_URL
// points at one (SQLite and PostgreSQL run everywhere, the latter started by .ci/run).
const sqlServerSuite = 'test/connectors/mssql.test.ts';

export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: ['test/**/*.test.ts', 'connectors/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      ...LONG_ONLY,
      ...DOCKER_TESTS,
      ...(process.env['MSSQL_URL'] ? [] : [sqlServerSuite]),
    ],
    env: ciSizes(),
    // Most of a test file's time is spent waiting (on child processes, kill delays, lease expiry, the sandbox's
    // sockets), so four test processes share a 2-core machine well (in the same fresh clone: three took 300 s, four
    // 254 s; with both cores kept busy by another program, four took 345 s and passed); vitest's default there is one.
    poolOptions: { forks: { maxForks: Math.max(4, availableParallelism() + 2) } },
    // The kill -9 and crash tests first, so that the last files to start are short ones.
    sequence: { sequencer: LongRunsFirst },
  },
});
