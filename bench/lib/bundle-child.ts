/**
 * Bundles a TypeScript child entry into one JavaScript file for plain `node`, so the memory measured in the child
 * is that of the code as deployed (compiled JavaScript), not of the TypeScript loader the other children run under
 * (about 100 MiB of extra RSS). Packages stay external and resolve from the project's node_modules, so the bundle
 * is written under bench/out.
 */
import { mkdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const OUT_DIR = fileURLToPath(new URL('../out/children/', import.meta.url));

export async function bundleChild(entry: string): Promise<string> {
  await mkdir(OUT_DIR, { recursive: true });
  const outfile = `${OUT_DIR}${basename(entry).replace(/\.ts$/, '')}.mjs`;
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}
