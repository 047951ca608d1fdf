/**
 * The daemon as it is deployed: src/ and connectors/ compiled to one JavaScript file per TypeScript file, in the
 * layout bin/supply-sync.js loads (dist/src/cli/main.js beside bin/), as `npm run release` compiles them. Written
 * under bench/out, so packages resolve from the project's node_modules and the package root is the project's.
 * The benchmark then runs `node bench/out/daemon/bin/supply-sync.js run --config ...`: no TypeScript loader in the
 * measured process, and no stale dist/ from an earlier build.
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../../scripts/release.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = fileURLToPath(new URL('../out/daemon/', import.meta.url));

/** Compiles the daemon afresh, as the release does; returns the path of its launcher (bin/supply-sync.js). */
export async function buildDaemon(): Promise<string> {
  await rm(OUT, { recursive: true, force: true });
  await compile(OUT);
  await mkdir(join(OUT, 'bin'), { recursive: true });
  const launcher = join(OUT, 'bin', 'supply-sync.js');
  await copyFile(join(ROOT, 'bin', 'supply-sync.js'), launcher);
  return launcher;
}
