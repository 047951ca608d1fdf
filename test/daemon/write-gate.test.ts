/**
 * The headroom gate's decisions on the lease it is shown: a write starts only with its timeout plus the margin
 * left, its timeout cut to what the lease allows; a late renewal is waited for, a missing one refuses the write as
 * a lost term does. The lease is a scripted fence here (what the database answers is tested in test/ha and
 * test/daemon/job-term.test.ts); the counts are of fence checks, not of time.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { WriteGate } from '../../src/daemon/services/write-gate.js';
import type { HaSettings } from '../../src/ha/index.js';
import { LeadershipLostError, type LeaseGrant, type StateStore } from '../../src/state/index.js';

const SETTINGS: HaSettings = {
  instance: 'gate-test',
  leaseMs: 1_000,
  renewIntervalMs: 100,
  pollIntervalMs: 100,
  writeTimeoutMs: 300,
  writeMarginMs: 200,
};

/**
 * A state whose fence answers from a script, the last answer repeated; it records when (performance.now()) each
 * answer was asked for.
 */
function scriptedState(answers: Array<LeaseGrant | Error>): {
  state: StateStore;
  checks: () => number;
  askedAt: readonly number[];
} {
  const askedAt: number[] = [];
  const state = {
    checkFence: (): LeaseGrant => {
      const answer = answers[Math.min(askedAt.length, answers.length - 1)];
      askedAt.push(performance.now());
      if (answer instanceof Error) throw answer;
      if (answer === undefined) throw new Error('no scripted answer');
      return answer;
    },
  } as unknown as StateStore;
  return { state, checks: () => askedAt.length, askedAt };
}

/**
 * admit's answer, checked: the timeout, and a deadline on the monotonic clock that many ms after the lease read that
 * admitted the write (the last one): taken after the read before it and before that read answered, so a write
 * admitted after waiting for a late renewal is not given the time spent waiting.
 */
async function admitted(
  gate: WriteGate,
  scripted: { askedAt: readonly number[] },
  what: string,
): Promise<number> {
  const before = performance.now();
  const allowance = await gate.admit(what);
  if (allowance === undefined) throw new Error('admit bounded nothing');
  const { askedAt } = scripted;
  const start = allowance.deadline - allowance.timeoutMs;
  expect(start).toBeGreaterThanOrEqual(askedAt.at(-2) ?? before);
  expect(start).toBeLessThanOrEqual(askedAt.at(-1) ?? Number.NEGATIVE_INFINITY);
  return allowance.timeoutMs;
}

describe('the write gate', () => {
  it('admits a write with the headroom, its timeout cut to the lease left minus the margin', async () => {
    const plenty = scriptedState([{ remainingMs: 900 }]);
    expect(await admitted(new WriteGate(plenty.state, SETTINGS), plenty, 'an API write')).toBe(300);
    const just = scriptedState([{ remainingMs: 500 }]);
    expect(await admitted(new WriteGate(just.state, SETTINGS), just, 'an API write')).toBe(300);
    expect(plenty.checks() + just.checks()).toBe(2);
  });

  it('waits for a late renewal and admits the write once it came', async () => {
    const late = scriptedState([{ remainingMs: 499 }, { remainingMs: 120 }, { remainingMs: 990 }]);
    expect(await admitted(new WriteGate(late.state, SETTINGS), late, 'an ERP commit')).toBe(300);
    expect(late.checks()).toBe(3);
  });

  it('refuses a write as a lost term when no renewal comes', async () => {
    const dying = scriptedState([{ remainingMs: 400 }]);
    const refusal = new WriteGate(dying.state, SETTINGS).admit('a books write');
    await expect(refusal).rejects.toMatchObject({
      name: 'LeadershipLostError',
      message: expect.stringMatching(
        /^a books write not started: the lease has \d+ ms left and a write needs 500 ms/,
      ),
    });
    expect(dying.checks()).toBeGreaterThan(1);
  });

  it('refuses when the lease cannot be read, and passes the fence refusal through', async () => {
    const unreachable = scriptedState([new Error('connect ECONNREFUSED')]);
    await expect(new WriteGate(unreachable.state, SETTINGS).admit('an API write')).rejects.toMatchObject({
      name: 'LeadershipLostError',
      message: expect.stringMatching(/could not be checked before an API write.*ECONNREFUSED/),
    });
    const lost = new LeadershipLostError('lease_taken', 'leadership lost: term 3 ended', 3);
    await expect(new WriteGate(scriptedState([lost]).state, SETTINGS).admit('x')).rejects.toBe(lost);
  });

  it('bounds nothing without a lease', async () => {
    const file = scriptedState([new Error('a state file has no fence to check')]);
    expect(await new WriteGate(file.state, null).admit('an API write')).toBeUndefined();
    expect(file.checks()).toBe(0);
  });
});
