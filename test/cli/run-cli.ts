import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { compiledEntry } from '../support/compiled-entry.js';

const ROOT = join(import.meta.dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI (compiled once, see test/support/compiled-entry.ts) in a child process, as a user would, bounded in time. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiledEntry(join(ROOT, 'src/cli/main.ts')), ...args], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A stack trace line as node prints them. */
export const STACK_LINE = /\n\s+at .+:\d+:\d+/;
