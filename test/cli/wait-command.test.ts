/**
 * A CLI that queues a command for the daemon and is interrupted before its wait begins still says that the command
 * stays queued: the signals are caught before the command is queued (src/cli/wait-command.ts, catchInterrupts).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { compiledEntry } from '../support/compiled-entry.js';
import { tempDir, type TempDir } from '../state/support.js';

const CHILD = fileURLToPath(new URL('./fixtures/interrupted-wait.ts', import.meta.url));

function interruptedWait(file: string, mode: 'early' | 'late') {
  return new Promise<{ stdout: string; code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, [compiledEntry(CHILD), file, mode], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ stdout, code, signal }));
    },
  );
}

describe('a wait interrupted before it begins', () => {
  let tmp: TempDir | undefined;
  afterEach(() => tmp?.remove());

  it('names the command that stays queued when the signals were caught before queueing', async () => {
    tmp = tempDir();
    const ended = await interruptedWait(tmp.file('state.db'), 'early');
    expect(ended.signal).toBeNull();
    expect(ended.code).toBe(0);
    expect(ended.stdout).toMatch(/^SIGINT: stopped waiting: command #1 stays queued/);
  });

  it('ends without a word when they are caught only once the wait starts (the window the CLI closes)', async () => {
    tmp = tempDir();
    const ended = await interruptedWait(tmp.file('state.db'), 'late');
    expect(ended.signal).toBe('SIGINT');
    expect(ended.stdout).toBe('');
  });
});
