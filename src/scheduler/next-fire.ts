/*
 * Next fire time of a cron schedule in a time zone.
 *
 * Why not node-cron: node-cron 4 computes next runs only from a live ScheduledTask that reads the real Date and owns
 * its own timers, so it cannot be driven by an injected clock, and its behaviour on daylight-saving days is not
 * specified. This calculator is pure (instant in, instant out) and states its daylight-saving rules:
 *
 * - Jobs with a fixed hour (`30 2 * * *`) follow the wall clock and run once per matching day: a time skipped by a
 *   spring-forward gap runs shifted forward by the gap (02:30 -> 03:30); a time repeated by a fall-back runs at its
 *   first occurrence only.
 * - Jobs whose hour field is `*` or `*\/n` repeat through the day and follow real elapsed time: wall times inside a gap
 *   do not exist and are skipped, wall times repeated by a fall-back run at both instants.
 */
import { matchesDay, parseCron, type CronSchedule } from './cron.js';
import { offsetAt, resolveWallTime, wallAsUtc, wallTimeAt } from './zoned-time.js';

const DAY_MS = 86_400_000;
/** Far enough for any valid expression (Feb 29 on a given weekday recurs within 28 years). */
const MAX_DAYS = 366 * 28;

function instantsForWallTime(
  cron: CronSchedule,
  wall: Parameters<typeof resolveWallTime>[0],
  timeZone: string,
) {
  const resolved = resolveWallTime(wall, timeZone);
  if (resolved.instants.length === 0) {
    return cron.hourWildcard || resolved.shiftedForward === undefined ? [] : [resolved.shiftedForward];
  }
  return cron.hourWildcard ? resolved.instants : resolved.instants.slice(0, 1);
}

/** The first instant strictly after `after` (epoch ms) at which the schedule fires in `timeZone`. */
export function nextFireTime(schedule: CronSchedule | string, after: number, timeZone: string): number {
  const cron = typeof schedule === 'string' ? parseCron(schedule) : schedule;
  // Start a day early: a fall-back repeat or a shifted gap time can fall after `after` on the previous wall day.
  const start = wallTimeAt(after - DAY_MS, timeZone);
  const dayCursor = Date.UTC(start.year, start.month - 1, start.day);
  for (let i = 0; i <= MAX_DAYS; i++) {
    const date = new Date(dayCursor + i * DAY_MS);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth() + 1;
    const day = date.getUTCDate();
    if (!matchesDay(cron, month, day, date.getUTCDay())) continue;
    const midnight = Date.UTC(year, month - 1, day);
    // Skip whole days that end before `after` (the earliest offset is about -12 h).
    if (midnight + DAY_MS + 14 * 3_600_000 <= after) continue;
    const offsetStart = offsetAt(midnight - 14 * 3_600_000, timeZone);
    const offsetEnd = offsetAt(midnight + DAY_MS + 14 * 3_600_000, timeZone);
    const steady = offsetStart === offsetEnd && offsetAt(midnight + DAY_MS / 2, timeZone) === offsetStart;
    let best: number | undefined;
    for (const hour of cron.hours) {
      for (const minute of cron.minutes) {
        const wall = { year, month, day, hour, minute };
        const instants = steady ? [wallAsUtc(wall) - offsetStart] : instantsForWallTime(cron, wall, timeZone);
        for (const instant of instants) {
          if (instant > after && (best === undefined || instant < best)) best = instant;
        }
        if (steady && best !== undefined) return best;
      }
    }
    if (best !== undefined) return best;
  }
  throw new Error(`cron expression "${cron.source}" never fires`);
}

/** Fire times in (from, to], ascending: for tests, catch-up decisions and status pages. */
export function fireTimesBetween(
  schedule: CronSchedule | string,
  from: number,
  to: number,
  timeZone: string,
): number[] {
  const cron = typeof schedule === 'string' ? parseCron(schedule) : schedule;
  const times: number[] = [];
  for (let t = nextFireTime(cron, from, timeZone); t <= to; t = nextFireTime(cron, t, timeZone))
    times.push(t);
  return times;
}
