/**
 * One `supply-sync` CLI process, started as an operator would run it (compiled JavaScript, `node <cli> ...`), with
 * its output kept for the failure message and its operations URL read from the "status at" note.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Under the project's node_modules, so that the compiled CLI resolves its packages from there. */
const CLI_CACHE = path.join(REPO_ROOT, 'node_modules', '.cache', 'supply-sync-test-cli');
let compiledCli: string | undefined;

/**
 * The CLI compiled once per test process, as the deployed package runs it: JavaScript on plain `node`. Starting
 * it under the TypeScript loader instead costs about half a second per start, which the crash harness pays at
 * every kill point. Packages stay external, and the database drivers it loads lazily stay lazy (code splitting).
 */
export function compiledCliEntry(): string {
  if (compiledCli !== undefined) return compiledCli;
  removeStaleBuilds();
  const outdir = path.join(CLI_CACHE, `${process.pid}-${Date.now()}`);
  buildSync({
    entryPoints: { main: path.join(REPO_ROOT, 'src', 'cli', 'main.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
  compiledCli = path.join(outdir, 'main.mjs');
  return compiledCli;
}

/**
 * Builds left behind by test processes that ended without running their exit handler (the test runner stops its
 * workers with a signal): a build whose owner, named by the folder, no longer runs.
 */
function removeStaleBuilds(): void {
  let entries: string[];
  try {
    entries = readdirSync(CLI_CACHE);
  } catch {
    return;
  }
  for (const entry of entries) {
    const owner = Number.parseInt(entry, 10);
    if (Number.isInteger(owner) && !isRunning(owner)) {
      rmSync(path.join(CLI_CACHE, entry), { recursive: true, force: true });
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

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds from spawn to exit. */
  elapsedMs: number;
}

export interface CliChild {
  readonly args: readonly string[];
  /** Resolves with the operations URL once `run` says it is serving; null if the process ends first. */
  readonly ready: Promise<string | null>;
  readonly exited: Promise<ExitInfo>;
  readonly startedAt: number;
  isRunning(): boolean;
  kill(signal: NodeJS.Signals): void;
  /** The last few kilobytes of stdout and stderr. */
  output(): string;
}

const READY_PATTERN = /status at (http:\/\/[^\s/]+)\/status/;
const KEEP_OUTPUT_CHARS = 16_000;

export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliChild {
  const startedAt = Date.now();
  const child: ChildProcess = spawn(process.execPath, [compiledCliEntry(), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let running = true;
  let resolveReady: (url: string | null) => void = () => undefined;
  const ready = new Promise<string | null>((resolve) => (resolveReady = resolve));
  const append = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-KEEP_OUTPUT_CHARS);
    const match = READY_PATTERN.exec(output);
    if (match?.[1] !== undefined) resolveReady(match[1]);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolveReady(null);
      resolve({ code, signal, elapsedMs: Date.now() - startedAt });
    });
    child.once('error', (error) => {
      output += `\nspawn error: ${error.message}`;
    });
  });
  return {
    args,
    ready,
    exited,
    startedAt,
    isRunning: () => running,
    kill: (signal) => {
      if (running) child.kill(signal);
    },
    output: () => output,
  };
}

/** Kills a child that is still running and waits for it; used by cleanup paths so nothing outlives a test. */
export async function killAndWait(child: CliChild | undefined): Promise<void> {
  if (child === undefined || !child.isRunning()) return;
  child.kill('SIGKILL');
  await child.exited;
}
