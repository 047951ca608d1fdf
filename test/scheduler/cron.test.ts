import { describe, expect, it } from 'vitest';
import { CronParseError, parseCron } from '../../src/scheduler/cron.js';
import { fireTimesBetween, nextFireTime } from '../../src/scheduler/next-fire.js';
import { offsetAt } from '../../src/scheduler/zoned-time.js';

const TZ = 'Asia/Jerusalem';
const HOUR = 3_600_000;

/** Local date and time as Intl shows it in Israel, e.g. "2026-03-27 03:30". */
function local(instant: number): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: TZ,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

function runsPerLocalDay(times: number[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of times) {
    const day = local(t).slice(0, 10);
    counts.set(day, (counts.get(day) ?? 0) + 1);
  }
  return counts;
}

describe('Israel daylight-saving dates (checked with Intl)', () => {
  it('springs forward on 2026-03-27 at 02:00 and falls back on 2026-10-25 at 02:00', () => {
    expect(offsetAt(Date.parse('2026-03-26T23:59:00Z'), TZ)).toBe(2 * HOUR);
    expect(offsetAt(Date.parse('2026-03-27T00:00:00Z'), TZ)).toBe(3 * HOUR);
    expect(local(Date.parse('2026-03-26T23:59:00Z'))).toBe('2026-03-27 01:59');
    expect(local(Date.parse('2026-03-27T00:00:00Z'))).toBe('2026-03-27 03:00');
    expect(offsetAt(Date.parse('2026-10-24T22:59:00Z'), TZ)).toBe(3 * HOUR);
    expect(offsetAt(Date.parse('2026-10-24T23:00:00Z'), TZ)).toBe(2 * HOUR);
    expect(local(Date.parse('2026-10-24T22:59:00Z'))).toBe('2026-10-25 01:59');
    expect(local(Date.parse('2026-10-24T23:00:00Z'))).toBe('2026-10-25 01:00');
  });
});

describe('nextFireTime across daylight-saving changes', () => {
  const around = (day: string) =>
    [
      Date.parse(`${day}T00:00:00Z`) - 3 * 86_400_000,
      Date.parse(`${day}T00:00:00Z`) + 3 * 86_400_000,
    ] as const;

  for (const schedule of ['30 2 * * *', '0 2 * * *', '0 1 * * *', '30 1 * * *', '59 1 * * *', '0 3 * * *']) {
    for (const day of ['2026-03-27', '2026-10-25']) {
      it(`"${schedule}" runs exactly once on each day around ${day}`, () => {
        const [from, to] = around(day);
        const counts = runsPerLocalDay(fireTimesBetween(schedule, from, to, TZ));
        expect(counts.get(day)).toBe(1);
        expect([...counts.values()].every((n) => n === 1)).toBe(true);
        for (const offset of [-2, -1, 1, 2]) {
          const neighbour = new Date(Date.parse(`${day}T12:00:00Z`) + offset * 86_400_000)
            .toISOString()
            .slice(0, 10);
          expect(counts.get(neighbour), neighbour).toBe(1);
        }
      });
    }
  }

  it('runs a job set inside the spring-forward gap shifted forward by the gap', () => {
    const after = Date.parse('2026-03-26T12:00:00Z');
    expect(local(nextFireTime('30 2 * * *', after, TZ))).toBe('2026-03-27 03:30');
    expect(local(nextFireTime('0 2 * * *', after, TZ))).toBe('2026-03-27 03:00');
  });

  it('runs a job set inside the repeated hour at its first occurrence only', () => {
    const first = nextFireTime('30 1 * * *', Date.parse('2026-10-24T12:00:00Z'), TZ);
    expect(new Date(first).toISOString()).toBe('2026-10-24T22:30:00.000Z'); // 01:30 summer time (+03:00)
    const second = nextFireTime('30 1 * * *', first, TZ);
    expect(local(second)).toBe('2026-10-26 01:30');
  });

  it('runs an hourly job every real hour: 23 runs on spring-forward day, 25 on fall-back day', () => {
    const spring = fireTimesBetween(
      '0 * * * *',
      Date.parse('2026-03-26T22:00:00Z') - 1,
      Date.parse('2026-03-27T21:00:00Z') - 1,
      TZ,
    );
    expect(spring).toHaveLength(23);
    expect(runsPerLocalDay(spring).get('2026-03-27')).toBe(23);
    const fall = fireTimesBetween(
      '0 * * * *',
      Date.parse('2026-10-24T21:00:00Z') - 1,
      Date.parse('2026-10-25T22:00:00Z') - 1,
      TZ,
    );
    expect(fall).toHaveLength(25);
    for (const series of [spring, fall]) {
      for (let i = 1; i < series.length; i++) expect((series[i] ?? 0) - (series[i - 1] ?? 0)).toBe(HOUR);
    }
  });

  it('runs a 15-minute job every real 15 minutes through both transitions', () => {
    for (const [from, to] of [
      ['2026-03-26T22:00:00Z', '2026-03-27T02:00:00Z'],
      ['2026-10-24T20:00:00Z', '2026-10-25T02:00:00Z'],
    ] as const) {
      const series = fireTimesBetween('*/15 * * * *', Date.parse(from), Date.parse(to), TZ);
      expect(series.length).toBe((Date.parse(to) - Date.parse(from)) / (15 * 60_000));
      for (let i = 1; i < series.length; i++)
        expect((series[i] ?? 0) - (series[i - 1] ?? 0)).toBe(15 * 60_000);
    }
  });

  it('honours weekdays, days of month (OR when both are set), months and macros', () => {
    const after = Date.parse('2026-06-01T00:00:00Z'); // a Monday
    expect(local(nextFireTime('0 9 * * fri', after, TZ))).toBe('2026-06-05 09:00');
    expect(local(nextFireTime('0 9 15 * fri', after, TZ))).toBe('2026-06-05 09:00');
    expect(local(nextFireTime('0 0 1 jan *', after, TZ))).toBe('2027-01-01 00:00');
    expect(local(nextFireTime('@daily', after, TZ))).toBe('2026-06-02 00:00');
    expect(local(nextFireTime('0 0 29 2 *', after, TZ))).toBe('2028-02-29 00:00');
    expect(local(nextFireTime('5-10/5 */6 * * *', after, TZ))).toBe('2026-06-01 06:05');
  });

  it('works in UTC and other zones', () => {
    expect(
      new Date(nextFireTime('30 2 * * *', Date.parse('2026-03-29T00:00:00Z'), 'UTC')).toISOString(),
    ).toBe('2026-03-29T02:30:00.000Z');
    // New York springs forward on 2026-03-08.
    const ny = fireTimesBetween(
      '30 2 * * *',
      Date.parse('2026-03-07T00:00:00Z'),
      Date.parse('2026-03-10T00:00:00Z'),
      'America/New_York',
    );
    expect(ny).toHaveLength(3);
  });

  it('rejects malformed expressions with a reason', () => {
    for (const bad of [
      'every 5 min',
      '* * * *',
      '60 * * * *',
      '* 24 * * *',
      '*/0 * * * *',
      '5-1 * * * *',
      '* * * foo *',
    ]) {
      expect(() => parseCron(bad), bad).toThrow(CronParseError);
    }
    expect(() => parseCron('61 * * * *')).toThrow(/minute 61 is outside 0-59/);
  });
});
