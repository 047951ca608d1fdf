/**
 * Child processes of the tests (the CLI, the flows' kill -9 children, the webhook receiver...) started as compiled
 * JavaScript on plain `node`, as the deployed package runs. Starting a child under the TypeScript loader instead
 * costs about half a second of compiling at every start, which the crash tests pay at every kill point.
 *
 * The test run's global setup (test/support/global-setup.ts) compiles every known child once, for all test
 * processes; a child it does not know is compiled on first use, once per test process.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The folder of the global setup's build, handed to the test processes through the environment. */
export const BUILD_DIR_ENV = 'SUPPLY_SYNC_TEST_BUILD_DIR';
const MANIFEST = 'manifest.json';

/** Under the project's node_modules, so that compiled children resolve their packages from there. */
export const BUILD_CACHE = path.join(REPO_ROOT, 'node_modules', '.cache', 'supply-sync-test-build');

/** Every entry the tests start as a child process, relative to the repository root. */
export const CHILD_ENTRIES: readonly string[] = [
  'src/cli/main.ts',
  'test/connectors/odata/kill9-child.ts',
  'test/engine/support/pull-child.ts',
  'test/flows/buyers/child.ts',
  'test/flows/catalog/child.ts',
  'test/cli/fixtures/interrupted-wait.ts',
  'test/flows/documents/child.ts',
  'test/flows/expenses/child.ts',
  'test/flows/journal-export/child.ts',
  'test/flows/mirror/child.ts',
  'test/flows/orders/child.ts',
  'test/flows/sales-push/child.ts',
  'test/ha/support/catalog-leader-child.ts',
  'test/ha/support/elector-child.ts',
  'test/ha/support/erp-writer-child.ts',
  'test/ha/support/odata-writer-child.ts',
  'test/ha/support/sync-pg-worker.ts',
  'test/soak/erp-activity.ts',
  'test/webhooks/fixtures/receiver-child.ts',
];

/**
 * Packages left to Node's resolution: native modules (better-sqlite3 and the optional drivers' native parts),
 * pino and its worker-thread transports (started from files by path), and the SQL Server driver stack.
 */
const EXTERNAL_PACKAGES: readonly string[] = [
  'better-sqlite3',
  'pg-native',
  'mssql',
  'tedious',
  'pino',
  'pino-pretty',
  'thread-stream',
];

/** Bundled CommonJS packages call `require`; an ES module has none of its own. */
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * Compiles `entries` (absolute paths) into `outdir` and returns the compiled file of each. Modules loaded lazily
 * (the database drivers) stay lazy through code splitting.
 */
export function compileEntries(entries: readonly string[], outdir: string): Record<string, string> {
  const names = new Map(entries.map((entry) => [entryName(entry), entry]));
  buildSync({
    entryPoints: {
      ...Object.fromEntries([...names].map(([name, entry]) => [name, entry])),
      // The PostgreSQL state's worker thread is started from a file beside the chunks (src/state/postgres/channel.ts).
      'state-worker': path.join(REPO_ROOT, 'src/state/postgres/state-worker.ts'),
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Packages are bundled too: a child then reads a few files at its start instead of hundreds of CommonJS
    // modules (undici alone is over a hundred), which is most of a short CLI command's time. Those that load files
    // or native code by path at run time stay external.
    external: [...EXTERNAL_PACKAGES],
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
  });
  return Object.fromEntries([...names].map(([name, entry]) => [entry, path.join(outdir, `${name}.mjs`)]));
}

export function writeManifest(outdir: string, compiled: Record<string, string>): void {
  writeFileSync(path.join(outdir, MANIFEST), JSON.stringify(compiled));
}

/**
 * Builds left behind by processes that ended without running their exit handler (the test runner stops its
 * workers with a signal): a build whose owner, named by the folder, no longer runs.
 */
export function removeStaleBuilds(): void {
  let entries: string[];
  try {
    entries = readdirSync(BUILD_CACHE);
  } catch {
    return;
  }
  for (const entry of entries) {
    const owner = Number.parseInt(entry, 10);
    if (Number.isInteger(owner) && !isRunning(owner)) {
      rmSync(path.join(BUILD_CACHE, entry), { recursive: true, force: true });
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function entryName(entry: string): string {
  return path
    .relative(REPO_ROOT, entry)
    .replace(/\.ts$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-');
}

let prebuilt: Record<string, string> | undefined;
const builtHere = new Map<string, string>();

function prebuiltEntries(): Record<string, string> {
  if (prebuilt !== undefined) return prebuilt;
  const dir = process.env[BUILD_DIR_ENV];
  const manifest = dir === undefined ? undefined : path.join(dir, MANIFEST);
  prebuilt =
    manifest !== undefined && existsSync(manifest)
      ? (JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, string>)
      : {};
  return prebuilt;
}

/** The compiled JavaScript of a TypeScript entry (an absolute path), to start with `node <file> ...`. */
export function compiledEntry(source: string): string {
  const absolute = path.resolve(source);
  const ready = prebuiltEntries()[absolute] ?? builtHere.get(absolute);
  if (ready !== undefined && existsSync(ready)) return ready;
  if (builtHere.size === 0) removeStaleBuilds();
  const outdir = path.join(BUILD_CACHE, `${process.pid}-${entryName(absolute)}`);
  const compiled = compileEntries([absolute], outdir)[absolute];
  if (compiled === undefined) throw new Error(`esbuild produced nothing for ${absolute}`);
  process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
  builtHere.set(absolute, compiled);
  return compiled;
}
