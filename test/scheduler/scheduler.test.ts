import { describe, expect, it } from 'vitest';
import {
  Scheduler,
  UnknownJobError,
  type SchedulerEvent,
  type SchedulerTrigger,
} from '../../src/scheduler/scheduler.js';
import { FakeClock, settle } from './fake-clock.js';

const TZ = 'Asia/Jerusalem';
const DAY = 86_400_000;
const MINUTE = 60_000;

interface Call {
  job: string;
  trigger: SchedulerTrigger;
  at: number;
}

function recorder(clock: FakeClock) {
  const calls: Call[] = [];
  const run = async (job: string, trigger: SchedulerTrigger) => {
    calls.push({ job, trigger, at: clock.now() });
  };
  return { calls, run };
}

function localDay(instant: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(new Date(instant));
}

describe('Scheduler on a fake clock', () => {
  for (const [label, start, schedule, transitionDay] of [
    ['spring forward', '2026-03-25T12:00:00Z', '30 2 * * *', '2026-03-27'],
    ['fall back', '2026-10-23T12:00:00Z', '0 1 * * *', '2026-10-25'],
    ['fall back, inside the repeated hour', '2026-10-23T12:00:00Z', '30 1 * * *', '2026-10-25'],
  ] as const) {
    it(`runs a nightly job once per day across ${label}`, async () => {
      const clock = new FakeClock(Date.parse(start));
      const { calls, run } = recorder(clock);
      const scheduler = new Scheduler({
        jobs: [{ name: 'nightly', schedule }],
        run,
        clock,
        timezone: TZ,
        maxSleepMs: 10 * MINUTE,
      });
      scheduler.start();
      await clock.advanceBy(4 * DAY);
      await scheduler.stop(1000);
      const days = calls.map((call) => localDay(call.at));
      expect(days).toHaveLength(4);
      expect(new Set(days).size).toBe(4);
      expect(days).toContain(transitionDay);
      expect(calls.every((call) => call.trigger === 'schedule')).toBe(true);
    });
  }

  it('catches up once at start when a run was missed while down, and not otherwise', async () => {
    const now = Date.parse('2026-06-10T09:00:00Z');
    const clock = new FakeClock(now);
    const { calls, run } = recorder(clock);
    const lastStarts: Record<string, number> = {
      missed: now - 2 * DAY, // nightly at 02:00 was due this morning
      fresh: Date.parse('2026-06-09T23:00:00Z'), // started at 02:00 local today: nothing missed
    };
    const scheduler = new Scheduler({
      jobs: [
        { name: 'missed', schedule: '0 2 * * *' },
        { name: 'fresh', schedule: '0 2 * * *' },
        { name: 'never-ran', schedule: '0 2 * * *' },
        { name: 'disabled', schedule: '0 2 * * *', enabled: false },
      ],
      run,
      clock,
      timezone: TZ,
      lastStart: (job) => lastStarts[job] ?? (job === 'disabled' ? now - 5 * DAY : undefined),
    });
    scheduler.start();
    await settle();
    expect(calls).toEqual([{ job: 'missed', trigger: 'catch-up', at: now }]);
    await scheduler.stop(1000);
  });

  it('carries out work between runs: at once when idle, else after the run in flight and before its follow-up', async () => {
    const clock = new FakeClock(Date.parse('2026-06-10T09:00:00Z'));
    const log: string[] = [];
    const scheduler = new Scheduler({
      jobs: [{ name: 'orders' }, { name: 'buyers' }],
      clock,
      timezone: TZ,
      run: async (job, trigger) => {
        log.push(`${job} ${trigger} start`);
        await clock.sleep(MINUTE);
        log.push(`${job} ${trigger} end`);
      },
    });
    expect(await scheduler.betweenRuns('orders', () => 'idle')).toBe('idle');
    const first = scheduler.runNow('orders', 'cli');
    const busyElsewhere = scheduler.runNow('buyers', 'cli');
    const reset = scheduler.betweenRuns('orders', () => {
      log.push('reset');
      return 'done';
    });
    const other = scheduler.betweenRuns('buyers-unknown', () => 'unknown');
    const followUp = scheduler.runNow('orders', 'webhook');
    // Its rejection is awaited only after the runs: handled from the start, so it never counts as unhandled.
    const failing = scheduler
      .betweenRuns('orders', () => {
        throw new Error('refused');
      })
      .then(
        () => 'resolved',
        (error: unknown) => error,
      );
    await expect(other).resolves.toBe('unknown');
    expect(log).toEqual(['orders cli start', 'buyers cli start']);
    await clock.advanceBy(3 * MINUTE);
    await Promise.all([first, followUp, busyElsewhere]);
    await expect(reset).resolves.toBe('done');
    expect(await failing).toMatchObject({ message: 'refused' });
    expect(log.filter((line) => line.startsWith('orders') || line === 'reset')).toEqual([
      'orders cli start',
      'orders cli end',
      'reset',
      'orders webhook start',
      'orders webhook end',
    ]);
    await scheduler.stop(1000);
  });

  it('settles work waiting between runs when the run outlives the stop, without carrying it out', async () => {
    const clock = new FakeClock(Date.parse('2026-06-10T09:00:00Z'));
    const log: string[] = [];
    let endRun: () => void = () => undefined;
    const scheduler = new Scheduler({
      jobs: [{ name: 'orders' }, { name: 'buyers' }],
      clock,
      timezone: TZ,
      // The orders run ignores the abort: it outlives the stop's time.
      run: (job) =>
        job === 'orders'
          ? new Promise<void>((resolve) => (endRun = resolve))
          : clock.sleep(MINUTE).then(() => undefined),
    });
    const run = scheduler.runNow('orders', 'cli');
    const quick = scheduler.runNow('buyers', 'cli');
    // How each wait was settled, once it is.
    const settled: Record<string, unknown> = {};
    const outcome = (name: string, promise: Promise<unknown>): void => {
      promise.then(
        (value) => (settled[name] = { value }),
        (error: unknown) => (settled[name] = { error }),
      );
    };
    outcome(
      'reset',
      scheduler.betweenRuns('orders', () => log.push('reset')),
    );
    outcome(
      'ended',
      scheduler.betweenRuns('buyers', () => log.push('buyers reset')),
    );
    const stopped = scheduler.stop(5 * MINUTE);
    await clock.advanceBy(5 * MINUTE);
    expect(await stopped).toEqual({ unfinished: ['orders'] });
    await quick;
    await settle();
    expect(settled).toMatchObject({
      ended: { value: 1 },
      reset: { error: { name: 'SchedulerStoppedError' } },
    });
    // Given once the scheduler has stopped, with the run still going on: refused at once.
    await expect(scheduler.betweenRuns('orders', () => log.push('late'))).rejects.toMatchObject({
      name: 'SchedulerStoppedError',
    });
    endRun();
    await run;
    await settle();
    expect(log).toEqual(['buyers reset']);
  });

  it('runs one job at a time and coalesces triggers during a run into one follow-up', async () => {
    const clock = new FakeClock(Date.parse('2026-06-10T09:00:00Z'));
    let active = 0;
    let maxActive = 0;
    const triggers: SchedulerTrigger[] = [];
    const scheduler = new Scheduler({
      jobs: [{ name: 'orders', schedule: '*/5 * * * *' }],
      clock,
      timezone: TZ,
      run: async (_job, trigger) => {
        triggers.push(trigger);
        active++;
        maxActive = Math.max(maxActive, active);
        await clock.sleep(MINUTE);
        active--;
      },
    });
    const first = scheduler.runNow('orders', 'cli');
    expect(scheduler.isRunning('orders')).toBe(true);
    const second = scheduler.runNow('orders', 'webhook');
    const third = scheduler.runNow('orders', 'webhook');
    expect(second).toBe(third);
    await clock.advanceBy(3 * MINUTE);
    await Promise.all([first, second, third]);
    expect(triggers).toEqual(['cli', 'webhook']);
    expect(maxActive).toBe(1);
    expect(scheduler.isRunning('orders')).toBe(false);
    expect(() => scheduler.runNow('ordres')).toThrow(UnknownJobError);
    await scheduler.stop(1000);
  });

  it('keeps jitter within [0, jitter) of the scheduled minute', async () => {
    for (const random of [0, 0.5, 0.999999]) {
      const clock = new FakeClock(Date.parse('2026-06-10T09:00:30Z'));
      const events: SchedulerEvent[] = [];
      const { calls, run } = recorder(clock);
      const scheduler = new Scheduler({
        jobs: [{ name: 'catalog', schedule: '0 * * * *', jitterMs: 10 * MINUTE }],
        run,
        clock,
        timezone: TZ,
        random: () => random,
        onEvent: (event) => events.push(event),
      });
      scheduler.start();
      await clock.advanceBy(3 * 3_600_000 + 10 * MINUTE);
      await scheduler.stop(1000);
      expect(calls).toHaveLength(3);
      for (const call of calls) {
        const offset = call.at % 3_600_000;
        expect(offset).toBe(Math.floor(random * 10 * MINUTE));
        expect(offset).toBeLessThan(10 * MINUTE);
      }
      expect(events.filter((e) => e.type === 'scheduled').length).toBeGreaterThanOrEqual(3);
    }
  });

  it("reads a job's own time zone before the default", async () => {
    const clock = new FakeClock(Date.parse('2026-06-10T00:00:00Z'));
    const { calls, run } = recorder(clock);
    const scheduler = new Scheduler({
      jobs: [
        { name: 'israel', schedule: '0 9 * * *' },
        { name: 'utc', schedule: '0 9 * * *', timezone: 'UTC' },
      ],
      run,
      clock,
      timezone: TZ,
    });
    scheduler.start();
    await clock.advanceBy(DAY);
    await scheduler.stop(1000);
    expect(calls.map((c) => [c.job, new Date(c.at).toISOString()])).toEqual([
      ['israel', '2026-06-10T06:00:00.000Z'],
      ['utc', '2026-06-10T09:00:00.000Z'],
    ]);
  });

  it('reports failed runs and keeps scheduling', async () => {
    const clock = new FakeClock(Date.parse('2026-06-10T09:00:30Z'));
    const events: SchedulerEvent[] = [];
    let attempts = 0;
    const scheduler = new Scheduler({
      jobs: [{ name: 'flaky', schedule: '* * * * *' }],
      clock,
      run: async () => {
        attempts++;
        throw new Error('erp down');
      },
      onEvent: (event) => events.push(event),
    });
    scheduler.start();
    await clock.advanceBy(3 * MINUTE);
    await scheduler.stop(1000);
    expect(attempts).toBe(3);
    expect(events.filter((e) => e.type === 'failed')).toHaveLength(3);
  });
});

describe('Scheduler shutdown', () => {
  it('aborts running jobs and returns once they stop, well within the bound', async () => {
    const clock = new FakeClock(Date.parse('2026-06-10T09:00:00Z'));
    let sawAbort = false;
    const scheduler = new Scheduler({
      jobs: [{ name: 'mirror', schedule: '0 * * * *' }],
      clock,
      run: async (_job, _trigger, signal) => {
        await clock.sleep(60 * MINUTE, signal).catch(() => {
          sawAbort = signal.aborted;
        });
      },
    });
    scheduler.start();
    void scheduler.runNow('mirror');
    await settle();
    const result = await scheduler.stop(30_000);
    expect(sawAbort).toBe(true);
    expect(result.unfinished).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('gives up on a job that ignores the abort after the bound, and refuses new work', async () => {
    const clock = new FakeClock(Date.parse('2026-06-10T09:00:00Z'));
    const events: SchedulerEvent[] = [];
    const scheduler = new Scheduler({
      jobs: [{ name: 'stubborn' }],
      clock,
      onEvent: (event) => events.push(event),
      run: () => clock.sleep(10 * 60 * MINUTE), // ignores the signal
    });
    void scheduler.runNow('stubborn');
    await settle();
    let resolved: { unfinished: string[] } | undefined;
    const stopping = scheduler.stop(30_000).then((r) => (resolved = r));
    await clock.advanceBy(29_000);
    expect(resolved).toBeUndefined();
    await clock.advanceBy(1_000);
    await stopping;
    expect(resolved).toEqual({ unfinished: ['stubborn'] });
    await scheduler.runNow('stubborn', 'webhook');
    expect(events.at(-1)).toMatchObject({ type: 'refused', job: 'stubborn', trigger: 'webhook' });
  });
});
