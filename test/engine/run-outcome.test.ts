/** The one outcome rule (judgeRun), as docs/operations.md "Run outcomes" tables it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { judgeRun, runJob, type RunResult } from '../../src/engine/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';

const run = (
  outcome: RunResult['outcome'],
  delivered: number,
  heldBack: number,
  error?: string,
): RunResult => ({
  outcome,
  counts: {},
  tally: {
    unit: 'documents',
    delivered,
    heldBack,
    reasons: { 'accounts value "4010" is missing': heldBack },
  },
  ...(error === undefined ? {} : { error }),
});

describe('judgeRun', () => {
  it.each([
    // outcome given, delivered, held back -> outcome
    ['ok', 0, 0, 'ok'],
    ['ok', 5, 0, 'ok'],
    ['ok', 0, 1, 'failed'],
    ['partial', 0, 3, 'failed'],
    ['ok', 19, 1, 'ok'], // 5%: under the default share
    ['ok', 15, 5, 'failed'], // 25% of 20: over the default share of 20%
    ['ok', 3, 2, 'ok'], // 40% but fewer than 20 tried
    ['skipped', 0, 2, 'skipped'],
    ['failed', 9, 0, 'failed'],
  ] as const)('%s with %i delivered and %i held back is %s', (given, delivered, heldBack, expected) => {
    expect(judgeRun(run(given, delivered, heldBack)).outcome).toBe(expected);
  });

  it('counts the tally into the run and names the reasons in the error', () => {
    const judged = judgeRun(run('ok', 0, 25, 'earlier note'));
    expect(judged.counts).toEqual({ delivered: 0, held_back: 25 });
    expect(judged.error).toBe(
      'delivered nothing: all 25 documents held back: accounts value "4010" is missing (25 documents); earlier note',
    );
  });

  it('names one held-back record in the singular', () => {
    expect(judgeRun(run('ok', 0, 1)).error).toBe(
      'delivered nothing: 1 document held back: accounts value "4010" is missing (1 document)',
    );
  });

  it('names whole reasons, at most five and as many as fit, and counts the others', () => {
    const withReasons = (reasons: Record<string, number>): RunResult => ({
      outcome: 'ok',
      counts: {},
      tally: { unit: 'documents', delivered: 0, heldBack: 7, reasons },
    });
    const seven = Object.fromEntries(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((name) => [`reason ${name}`, 1]),
    );
    expect(judgeRun(withReasons(seven)).error).toBe(
      'delivered nothing: all 7 documents held back: reason a (1 document); reason b (1 document); ' +
        'reason c (1 document); reason d (1 document); reason e (1 document); ' +
        'and 2 more reasons (supply-sync dead-letters list)',
    );
    const long = {
      [`first ${'x'.repeat(150)}`]: 4,
      [`second ${'y'.repeat(150)}`]: 2,
      [`third ${'z'.repeat(150)}`]: 1,
    };
    const judged = judgeRun(withReasons(long)).error ?? '';
    expect(judged).toMatch(
      /x \(4 documents\); second y+ \(2 documents\); and 1 more reason \(supply-sync dead-letters list\)$/,
    );
    expect(judged.length).toBeLessThanOrEqual(500);
    // A first reason longer than the error may be is shortened; the note of the rest stays whole.
    const huge = { [`only ${'w'.repeat(600)}`]: 2, 'second reason': 1 };
    const shortened = judgeRun(withReasons(huge)).error ?? '';
    expect(shortened).toMatch(
      /^delivered nothing: all 7 documents held back: only w+\.\.\.; and 1 more reason \(supply-sync dead-letters list\)$/,
    );
    expect(shortened).toHaveLength(500);
  });

  it('follows the job share: 0.5 lets 40% pass, and 0 fails any held back once enough were tried', () => {
    expect(judgeRun(run('ok', 12, 8), { maxFailureShare: 0.5 }).outcome).toBe('ok');
    expect(judgeRun(run('ok', 99, 1), { maxFailureShare: 0, minSample: 1 }).outcome).toBe('failed');
  });

  it('is what runJob records for every job', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-'));
    const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
    try {
      const job = { name: 'any', run: () => Promise.resolve(run('ok', 0, 4)) };
      const ctx = {
        signal: new AbortController().signal,
        budgetMs: 1000,
        dryRun: false,
        logger: pino({ level: 'silent' }),
        clock: systemClock,
        state,
        trigger: 'cli' as const,
      };
      expect((await runJob(job, ctx)).outcome).toBe('failed');
      expect(state.runs.recent('any', 1)[0]).toMatchObject({ outcome: 'failed', counts: { held_back: 4 } });
    } finally {
      state.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
