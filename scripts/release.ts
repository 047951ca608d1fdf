/**
 * `npm run release`: a self-contained tarball for the build platform. It holds the compiled JavaScript, the
 * production node_modules (better-sqlite3's native module as built here, so the target needs the same OS, CPU
 * and Node major version), launchers for sh and cmd, the example configs, the deploy files, the deploy and
 * operations guides, and README.release.md as its README.md. Only Node is needed where it is unpacked.
 *
 *   node --import tsx scripts/release.ts [--out DIR]     (default DIR: release/)
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
/** What tsconfig.build.json compiles: the shipped code. */
const COMPILED = ['src', 'connectors'];
/**
 * What is copied from the repository (`from`) and where it lands in the release (`to`). The repository's README is
 * for developers (`npm ci && npm start`, the tests); the person who unpacks the release gets README.release.md,
 * which starts from the launchers, the example configs and the service definitions.
 */
export const SHIPPED: readonly { readonly from: string; readonly to: string }[] = [
  ...[
    'package.json',
    'package-lock.json',
    'bin',
    'config',
    'deploy',
    'docs/deploy.md',
    'docs/operations.md',
    'docs/control-api.json',
  ].map((path) => ({ from: path, to: path })),
  { from: 'README.release.md', to: 'README.md' },
];

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')
      ? [full]
      : [];
  });
}

/** The TypeScript files compiled into the release, relative to the repository root (test support never among them). */
export function shippedSources(): string[] {
  return COMPILED.flatMap((dir) => sourceFiles(join(ROOT, dir))).map((file) => relative(ROOT, file));
}

/**
 * One .js per .ts under `stage`/dist/, the layout bin/supply-sync.js loads (dist/src/cli/main.js); the daemon
 * benchmarks compile with it too, so they measure what ships.
 */
export async function compile(stage: string): Promise<void> {
  await build({
    entryPoints: shippedSources().map((file) => join(ROOT, file)),
    outdir: join(stage, 'dist'),
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    logLevel: 'warning',
  });
}

/** The production dependency tree as npm resolved it here, each package copied without its nested node_modules. */
function copyProductionModules(stage: string): number {
  const listing = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    // npm is a .cmd script on Windows, which only a shell runs.
    shell: process.platform === 'win32',
    maxBuffer: 16 * 1024 * 1024,
  });
  const packages = listing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== ROOT && line.startsWith(join(ROOT, 'node_modules')));
  for (const dir of packages) {
    const nested = join(dir, 'node_modules');
    cpSync(dir, join(stage, relative(ROOT, dir)), {
      recursive: true,
      filter: (source) => source !== nested,
    });
  }
  return packages.length;
}

function writeLaunchers(stage: string): void {
  const sh = join(stage, 'supply-sync');
  writeFileSync(
    sh,
    [
      '#!/bin/sh',
      '# Runs supply-sync with the Node found on PATH (>= 20.18).',
      'exec node "${0%/*}/bin/supply-sync.js" "$@"',
      '',
    ].join('\n'),
  );
  chmodSync(sh, 0o755);
  writeFileSync(
    join(stage, 'supply-sync.cmd'),
    [
      '@echo off',
      'rem Runs supply-sync with the Node found on PATH (>= 20.18).',
      'node "%~dp0bin\\supply-sync.js" %*',
      '',
    ].join('\r\n'),
  );
}

async function main(): Promise<void> {
  const manifest = (await import(join(ROOT, 'package.json'), { with: { type: 'json' } })) as {
    default: { version: string };
  };
  const version = manifest.default.version;
  const out = resolve(argument('--out') ?? join(ROOT, 'release'));
  const name = `supply-sync-${version}`;
  const stage = join(out, name);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });

  await compile(stage);
  for (const { from, to } of SHIPPED) {
    mkdirSync(dirname(join(stage, to)), { recursive: true });
    cpSync(join(ROOT, from), join(stage, to), { recursive: true });
  }
  mkdirSync(join(stage, 'state'));
  const modules = copyProductionModules(stage);
  if (!existsSync(join(stage, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))) {
    throw new Error('better-sqlite3 has no native build in node_modules: run npm ci first');
  }
  writeLaunchers(stage);
  writeFileSync(
    join(stage, 'BUILD.txt'),
    [
      `supply-sync ${version}`,
      `built for ${process.platform}-${process.arch}, Node ${process.versions.node} (module ABI ${process.versions.modules})`,
      'run with the same OS, CPU and Node major version: better-sqlite3 is a native module',
      '',
    ].join('\n'),
  );

  const tarball = join(out, `${name}-${process.platform}-${process.arch}.tar.gz`);
  execFileSync('tar', ['-czf', tarball, '-C', out, name]);
  rmSync(stage, { recursive: true, force: true });
  const megabytes = (statSync(tarball).size / 1024 / 1024).toFixed(1);
  console.log(`${tarball} (${megabytes} MB, ${modules} production packages)`);
}

// Run as a script; imported (by the tests, for SHIPPED), it builds nothing.
const script = process.argv[1];
if (script !== undefined && realpathSync(script) === fileURLToPath(import.meta.url)) await main();
