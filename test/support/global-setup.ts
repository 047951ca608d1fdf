/**
 * Runs once before the test processes start: compiles every child entry the tests start (see compiled-entry.ts)
 * in one esbuild pass, instead of once per test file or under the TypeScript loader at every start.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import {
  BUILD_CACHE,
  BUILD_DIR_ENV,
  CHILD_ENTRIES,
  compileEntries,
  removeStaleBuilds,
  REPO_ROOT,
  writeManifest,
} from './compiled-entry.js';
import { COMPILED_STATE_WORKER_ENV } from '../../src/state/postgres/channel.js';

export default function setup(): () => void {
  removeStaleBuilds();
  const outdir = path.join(BUILD_CACHE, `${process.pid}-run`);
  const compiled = compileEntries(
    CHILD_ENTRIES.map((entry) => path.join(REPO_ROOT, entry)),
    outdir,
  );
  writeManifest(outdir, compiled);
  // The test processes are forked after this and inherit the environment.
  process.env[BUILD_DIR_ENV] = outdir;
  // The PostgreSQL states the tests open in their own processes start this compiled worker (channel.ts).
  process.env[COMPILED_STATE_WORKER_ENV] = path.join(outdir, 'state-worker.mjs');
  return () => rmSync(outdir, { recursive: true, force: true });
}
