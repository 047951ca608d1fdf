/**
 * The daemon as it is deployed: src/ and connectors/ compiled to one JavaScript file per TypeScript file, in the
 * layout bin/supply-sync.js loads (dist/src/cli/main.js beside bin/), as `npm run release` compiles them. Written
 * under bench/out, so packages resolve from the project's node_modules and the package root is the project's.
 * The benchmark then runs `node bench/out/daemon/bin/supply-sync.js run --config ...`: no TypeScript loader in the
 * measured process, and no stale dist/ from an earlier build.
 */
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = fileURLToPath(new URL('../out/daemon/', import.meta.url));
const COMPILED = ['src', 'connectors'];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      const shipped =
        entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts');
      return shipped ? [full] : [];
    }),
  );
  return nested.flat();
}

/** Compiles the daemon afresh; returns the path of its launcher (bin/supply-sync.js). */
export async function buildDaemon(): Promise<string> {
  await rm(OUT, { recursive: true, force: true });
  const entryPoints = (await Promise.all(COMPILED.map((dir) => sourceFiles(join(ROOT, dir))))).flat();
  await build({
    entryPoints,
    outdir: join(OUT, 'dist'),
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    logLevel: 'warning',
  });
  await mkdir(join(OUT, 'bin'), { recursive: true });
  const launcher = join(OUT, 'bin', 'supply-sync.js');
  await copyFile(join(ROOT, 'bin', 'supply-sync.js'), launcher);
  return launcher;
}
