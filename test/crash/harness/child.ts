/**
 * One `supply-sync` CLI process, started as an operator would run it (compiled JavaScript, `node <cli> ...`), with
 * its output kept for the failure message and its operations URL read from the "status at" note.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledEntry } from '../../support/compiled-entry.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The CLI compiled once, as the deployed package runs it: JavaScript on plain `node` (see compiled-entry.ts). */
export function compiledCliEntry(): string {
  return compiledEntry(path.join(REPO_ROOT, 'src', 'cli', 'main.ts'));
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
  /**
   * Resolves once the output holds `text` (a log line may come after the ready line: the logger writes
   * asynchronously); rejects with the output when the process ends first or after `timeoutMs`.
   */
  printed(text: string, timeoutMs?: number): Promise<void>;
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
    printed: async (text, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (!running || Date.now() > deadline) {
          throw new Error(
            `${running ? `not within ${timeoutMs} ms` : 'it ended'} it printed no\n${text}\n--- output\n${output}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

/** Kills a child that is still running and waits for it; used by cleanup paths so nothing outlives a test. */
export async function killAndWait(child: CliChild | undefined): Promise<void> {
  if (child === undefined || !child.isRunning()) return;
  child.kill('SIGKILL');
  await child.exited;
}
