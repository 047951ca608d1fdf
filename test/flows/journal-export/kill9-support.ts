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
  /** The guard killed it: the kill was not one of the test's points. */
  guarded: boolean;
}

/** How long one child may run before the guard kills it: a kill round, or the final run that must converge. */
const KILL_ROUND_GUARD_MS = 60_000;
const FINAL_RUN_GUARD_MS = 300_000;

function runChild(
  env: Record<string, unknown>,
  killAfterStartMs: number | null,
  guardMs = KILL_ROUND_GUARD_MS,
): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiledEntry(CHILD)], {
      env: { ...process.env, JOURNAL_CHILD: JSON.stringify(env) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let timer: NodeJS.Timeout | undefined;
    let guarded = false;
    const guard = setTimeout(() => {
      guarded = true;
      child.kill('SIGKILL');
    }, guardMs);
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
      resolve({ code, signal, stdout, guarded });
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
  // The kills are counted, not the rounds: a child that finishes before its kill point (nothing left to do yet)
  // exits 0 and the next round tries again. The round limit is a guard that says what was reached.
  const maxRounds = KILL_POINTS * 3;
  let point = 0;
  for (; kills < KILL_POINTS && point < maxRounds; point += 1) {
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
    expect(exit.guarded, `a child ran past the ${KILL_ROUND_GUARD_MS} ms guard in round ${point}`).toBe(
      false,
    );
    if (exit.signal === 'SIGKILL') kills += 1;
    else expect(exit.code, exit.stdout).toBe(0);
  }
  expect(kills, `the guard of ${maxRounds} rounds ended the kills after ${kills}`).toBeGreaterThanOrEqual(
    KILL_POINTS,
  );
  const final = await runChild(base, null, FINAL_RUN_GUARD_MS);
  expect(final.guarded, `the final run did not converge within ${FINAL_RUN_GUARD_MS} ms`).toBe(false);
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
