/** Wall-clock arithmetic in an IANA time zone, on Intl.DateTimeFormat only (Node ships full ICU data). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall time and seconds shown by a clock in `timeZone` at `instant`. */
export function wallTimeAt(instant: number, timeZone: string): WallTime & { second: number } {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return {
    year: fields['year'] ?? 0,
    month: fields['month'] ?? 0,
    day: fields['day'] ?? 0,
    hour: fields['hour'] ?? 0,
    minute: fields['minute'] ?? 0,
    second: fields['second'] ?? 0,
  };
}

/** The wall time read as if it were UTC: the usual trick for offset arithmetic. */
export function wallAsUtc(wall: WallTime): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
}

/** Offset of `timeZone` from UTC at `instant`, in ms (Israel: +2 h in winter, +3 h in summer). */
export function offsetAt(instant: number, timeZone: string): number {
  const wall = wallTimeAt(instant, timeZone);
  return wallAsUtc(wall) + wall.second * 1000 - Math.floor(instant / 1000) * 1000;
}

function sameWall(a: WallTime, b: WallTime): boolean {
  return (
    a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute
  );
}

export interface ResolvedWallTime {
  /** The instants showing this wall time, ascending: one normally, two in a fall-back overlap, none in a gap. */
  instants: number[];
  /** For a gap: the instant the wall time maps to when shifted forward by the gap (02:30 -> 03:30). */
  shiftedForward?: number;
}

const DAY_MS = 86_400_000;

/** Every instant at which a clock in `timeZone` shows `wall` (assumes at most one offset change within a day). */
export function resolveWallTime(wall: WallTime, timeZone: string): ResolvedWallTime {
  const asUtc = wallAsUtc(wall);
  const before = offsetAt(asUtc - DAY_MS, timeZone);
  const after = offsetAt(asUtc + DAY_MS, timeZone);
  const candidates = [...new Set([asUtc - before, asUtc - after])].sort((a, b) => a - b);
  const instants = candidates.filter((instant) => sameWall(wallTimeAt(instant, timeZone), wall));
  if (instants.length > 0) return { instants };
  return { instants, shiftedForward: asUtc - before };
}
