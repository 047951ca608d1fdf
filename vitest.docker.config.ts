import { defineConfig } from 'vitest/config';
import { DOCKER_TESTS, SHARED_TEST_OPTIONS } from './test/support/suites.js';

// `npm run test:docker`: the container image built from the Dockerfile and run as docs/deploy.md says, by a Docker
// engine the test starts itself (test/docker/engine.ts). A stage of .ci/run of its own: it takes minutes, needs
// root, and npm test and test:long leave it out.
export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: [...DOCKER_TESTS],
    exclude: ['**/node_modules/**'],
    poolOptions: { forks: { maxForks: 1 } },
  },
});
