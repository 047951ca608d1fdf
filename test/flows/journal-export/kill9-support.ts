/**
 * Support for the kill -9 tests. kill -9 at seeded random points: a child process runs the journal-export job against the sandbox this test hosts
 * and is killed with SIGKILL (by a timer here, or by itself at a chosen write/export step), then restarted until a
 * run finds nothing left. Meanwhile more lines are approved. In the end every line is written once and exported once.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { compiledEntry } from '../../support/compiled-entry.js';
import { sandboxExportBatches, sandboxLines, type Harness } from './harness.js';

export const KILL_POINTS = Number(process.env['JOURNAL_KILL_POINTS'] ?? 26);
const CHILD = join(import.meta.dirname, 'child.ts');

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

function runChild(env: Record<string, unknown>, killAfterStartMs: number | null): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiledEntry(CHILD)], {
      env: { ...process.env, JOURNAL_CHILD: JSON.stringify(env) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killAfterStartMs !== null && timer === undefined && stdout.includes('started')) {
        timer = setTimeout(() => child.kill('SIGKILL'), killAfterStartMs);
      }
    });
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout });
    });
  });
}

export async function crashUntilConverged(
  harness: Harness,
  seed: number,
  target: 'sql' | 'hashavshevet',
  targetPath: string,
) {
  const random = mulberry32(seed);
  const base = {
    baseUrl: harness.sandbox.baseUrl,
    apiKey: harness.sandbox.keys.buyer,
    stateFile: join(harness.dir, 'daemon.db'),
    target,
    targetPath,
  };
  await harness.sandbox.control.action('approve_journal_lines', { count: 60 });
  let kills = 0;
  for (let point = 0; point < KILL_POINTS; point += 1) {
    if (random() < 0.5)
      await harness.sandbox.control.action('approve_journal_lines', { count: 3 + Math.floor(random() * 25) });
    const selfKill = point % 2 === 0;
    // Lines are also approved while the child runs, at a random moment.
    const approveDelay = Math.floor(random() * 1500);
    const approving = new Promise((resolve) => setTimeout(resolve, approveDelay)).then(() =>
      harness.sandbox.control.action('approve_journal_lines', { count: 3 }),
    );
    const exit = await runChild(
      selfKill ? { ...base, killAtStep: 1 + Math.floor(random() * 12) } : base,
      selfKill ? null : Math.floor(random() * 300),
    );
    await approving;
    if (exit.signal === 'SIGKILL') kills += 1;
    else expect(exit.code, exit.stdout).toBe(0);
  }
  const final = await runChild(base, null);
  expect(final.code, final.stdout).toBe(0);
  expect(final.stdout).toContain('converged');
  return kills;
}

export async function exportedByUs(harness: Harness) {
  const batches = (await sandboxExportBatches(harness.sandbox)).filter((b) =>
    b.external_ref?.startsWith('je-'),
  );
  const refOf = new Map(batches.map((b) => [b.id, b.external_ref ?? '']));
  const lines = await sandboxLines(harness.sandbox);
  expect(lines.filter((line) => line.status === 'approved_for_export')).toEqual([]);
  const ours = lines.filter((line) => refOf.has(line.export_batch_id ?? ''));
  expect(batches.reduce((n, b) => n + b.line_count, 0)).toBe(ours.length);
  return { ours, refOf };
}
