import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/shared/clock.js';
import { coalescingClock } from '../../src/shared/coalescing-clock.js';
import { FakeClock } from '../scheduler/fake-clock.js';

/** A fake clock that counts the sleeps asked of it. */
function countingBase(start: number): { fake: FakeClock; base: Clock; sleeps: () => number } {
  const fake = new FakeClock(start);
  let sleeps = 0;
  const base: Clock = {
    now: () => fake.now(),
    sleep: (ms, signal) => {
      sleeps += 1;
      return fake.sleep(ms, signal);
    },
  };
  return { fake, base, sleeps: () => sleeps };
}

/** When each of `sleeps` resolved, by the fake clock, or 'pending'. */
function track(fake: FakeClock, sleeps: Promise<void>[]): Array<number | 'pending' | 'aborted'> {
  const ends: Array<number | 'pending' | 'aborted'> = sleeps.map(() => 'pending');
  sleeps.forEach((sleep, i) =>
    sleep.then(
      () => (ends[i] = fake.now()),
      () => (ends[i] = 'aborted'),
    ),
  );
  return ends;
}

describe('a coalescing clock', () => {
  it('ends sleeps on the next whole second after their time, one sleep of the base clock per second', async () => {
    const { fake, base, sleeps } = countingBase(10_250);
    const clock = coalescingClock(base, 1_000);
    // Three loops due during second 20 and one due at 21.0 exactly (10,250 + 10,750).
    const ends = track(fake, [
      clock.sleep(9_000),
      clock.sleep(9_700),
      clock.sleep(9_750),
      clock.sleep(10_750),
    ]);
    expect(sleeps()).toBe(2);
    await fake.advanceTo(19_999);
    expect(ends).toEqual(['pending', 'pending', 'pending', 'pending']);
    await fake.advanceTo(20_000);
    expect(ends).toEqual([20_000, 20_000, 20_000, 'pending']);
    await fake.advanceTo(21_000);
    expect(ends).toEqual([20_000, 20_000, 20_000, 21_000]);
    expect(clock.now()).toBe(21_000);
  });

  it('never ends a sleep before its time: one ending on a whole second ends then', async () => {
    const { fake, base } = countingBase(0);
    const clock = coalescingClock(base, 1_000);
    const ends = track(fake, [clock.sleep(3_000), clock.sleep(0)]);
    await fake.advanceTo(2_999);
    expect(ends).toEqual([`pending`, 0]);
    await fake.advanceTo(3_000);
    expect(ends).toEqual([3_000, 0]);
  });

  it('lets one sleeper give up without waking the others, and drops the base sleep once all gave up', async () => {
    const { fake, base, sleeps } = countingBase(500);
    const clock = coalescingClock(base, 1_000);
    const first = new AbortController();
    const second = new AbortController();
    const ends = track(fake, [clock.sleep(4_000, first.signal), clock.sleep(4_200, second.signal)]);
    first.abort(new Error('stopped'));
    await fake.advanceTo(1_000);
    expect(ends).toEqual(['aborted', 'pending']);
    expect(fake.pendingTimers()).toBe(1);
    second.abort(new Error('stopped'));
    await fake.advanceTo(1_500);
    expect(ends).toEqual(['aborted', 'aborted']);
    expect(fake.pendingTimers()).toBe(0);
    // A later sleep for the same second starts a base sleep of its own.
    const later = track(fake, [clock.sleep(3_000)]);
    expect(sleeps()).toBe(2);
    await fake.advanceTo(5_000);
    expect(later).toEqual([5_000]);
  });

  it('wakes the sleepers of a second whose base sleep failed, rather than never', async () => {
    const failing: Clock = { now: () => 1_500, sleep: () => Promise.reject(new Error('timer failed')) };
    const clock = coalescingClock(failing, 1_000);
    await expect(Promise.all([clock.sleep(100), clock.sleep(200)])).resolves.toEqual([undefined, undefined]);
  });

  it('refuses a sleep whose signal has already aborted', async () => {
    const { base, sleeps } = countingBase(0);
    const clock = coalescingClock(base, 1_000);
    const aborted = AbortSignal.abort(new Error('already stopped'));
    await expect(clock.sleep(1_000, aborted)).rejects.toThrow('already stopped');
    expect(sleeps()).toBe(0);
  });
});
