/** Runs a flow's crash-test child process and reports how it ended (killed, converged, failed). */
import { spawn } from 'node:child_process';
import { compiledEntry } from '../../support/compiled-entry.js';

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The child outlived the guard and was killed for it: a hang, not a kill point. */
  timedOut: boolean;
}

/**
 * Starts `<file>` (compiled once, see test/support/compiled-entry.ts) with its arguments in `envName`. With `killAfterStartMs`, the parent sends
 * SIGKILL that long after the child printed "started".
 */
export function runChild(
  file: string,
  envName: string,
  args: Record<string, unknown>,
  killAfterStartMs: number | null,
  guardMs = 60_000,
): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiledEntry(file)], {
      env: { ...process.env, [envName]: JSON.stringify(args) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const guard = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, guardMs);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killAfterStartMs !== null && timer === undefined && stdout.includes('started')) {
        timer = setTimeout(() => child.kill('SIGKILL'), killAfterStartMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    // 'close', not 'exit': exit may come before the last of the child's output has been read.
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
