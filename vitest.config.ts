import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongRunsFirst } from './test/support/sequencer.js';
import { ARTEFACT_TESTS, ciSizes, LONG_ONLY, SHARED_TEST_OPTIONS } from './test/support/suites.js';

// `npm test`: every test but the fault convergence and soak runs, the crash and kill -9 runs at CI size (see
// test/support/suites.ts). `npm run test:long` runs the long runs at full size (vitest.long.config.ts).

// SQL Server cannot run on every machine: its copy of the shared SQL connector suite runs only where MSSQL_URL
// points at one (SQLite and PostgreSQL run everywhere, the latter started by .ci/run).
const sqlServerSuite = 'test/connectors/mssql.test.ts';

const TEST_PROCESSES = Math.max(6, availableParallelism() + 4);

export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: ['test/**/*.test.ts', 'connectors/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      ...LONG_ONLY,
      ...ARTEFACT_TESTS,
      ...(process.env['MSSQL_URL'] ? [] : [sqlServerSuite]),
    ],
    env: ciSizes(),
    // Much of a test file's time is spent waiting (on child processes, kill delays, lease expiry, the sandbox's
    // sockets), so more test processes than cores keep the cores busy. On the 2-core machine, with the test processes
    // shared between files: four took 334 s with 1.43 cores busy; six took 298 s with 1.76 cores busy (and without
    // the PostgreSQL case of the never-hangs test, since moved to test:long, about 25 s of one file).
    poolOptions: { forks: { maxForks: TEST_PROCESSES, minForks: TEST_PROCESSES } },
    // The test files share their test processes instead of each starting one and loading its modules anew: on the
    // 2-core machine, loading a file's modules (collect) cost more than running its tests. A file that replaces a
    // module (vi.mock) loads what uses it afresh (vi.resetModules). minForks: vitest 3.2 reports a spurious
    // "Terminating worker thread" rejection when it ends shared test processes it started on demand.
    isolate: false,
    // The kill -9 and crash tests first, so that the last files to start are short ones.
    sequence: { sequencer: LongRunsFirst },
  },
});
