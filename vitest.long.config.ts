import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LONG_RUNS, SHARED_TEST_OPTIONS } from './test/support/suites.js';

// `npm run test:long`: only the long runs (crash, kill -9, fault and soak tests; see test/support/suites.ts), at the
// full size each test sets for itself. Size knobs set in the environment still apply.
export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: [...LONG_RUNS],
    exclude: ['**/node_modules/**'],
    // The long runs mostly wait on their child processes; two share a 2-core machine (see vitest.config.ts).
    poolOptions: { forks: { maxForks: Math.max(2, availableParallelism() - 1) } },
  },
});
