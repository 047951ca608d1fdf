import { defineConfig } from 'vitest/config';
import { ARTEFACT_TESTS, SHARED_TEST_OPTIONS } from './test/support/suites.js';

// `npm run test:docker`: the shipped artefacts. The container image built from the Dockerfile and run as
// docs/deploy.md says, by a Docker engine the test starts itself (test/docker/engine.ts), and the release tarball
// unpacked where only Node is installed (test/deploy/release.test.ts). A stage of .ci/run of its own: it takes
// minutes, needs root, and npm test and test:long leave it out.
export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: [...ARTEFACT_TESTS],
    exclude: ['**/node_modules/**'],
    poolOptions: { forks: { maxForks: 1 } },
  },
});
