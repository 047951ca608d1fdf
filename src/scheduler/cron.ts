/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), with lists, ranges, steps, month and day
 * names and the @hourly/@daily/@weekly/@monthly/@yearly macros. Day-of-month and day-of-week combine with OR when
 * both are restricted, as in Vixie cron.
 */
export interface CronSchedule {
  readonly source: string;
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
  readonly domRestricted: boolean;
  readonly dowRestricted: boolean;
  /** True when the hour field is `*` or `*\/n`: the job repeats through the day and follows real elapsed time. */
  readonly hourWildcard: boolean;
}

export class CronParseError extends Error {
  override readonly name = 'CronParseError';
}

const MACROS: Record<string, string> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
};
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  namesOffset?: number;
}
const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES, namesOffset: 1 },
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES, namesOffset: 0 },
];

function parseValue(text: string, spec: FieldSpec): number {
  const lower = text.toLowerCase();
  const nameIndex = spec.names?.indexOf(lower) ?? -1;
  if (nameIndex >= 0) return nameIndex + (spec.namesOffset ?? 0);
  if (!/^\d+$/.test(text)) throw new CronParseError(`${spec.name} "${text}" is not a number`);
  const value = Number(text);
  if (value < spec.min || value > spec.max) {
    throw new CronParseError(`${spec.name} ${value} is outside ${spec.min}-${spec.max}`);
  }
  return value;
}

function parseField(text: string, spec: FieldSpec): { values: Set<number>; wildcard: boolean } {
  const values = new Set<number>();
  let wildcard = false;
  for (const part of text.split(',')) {
    const [rangeText, stepText, extra] = part.split('/');
    if (rangeText === undefined || rangeText === '' || extra !== undefined) {
      throw new CronParseError(`${spec.name} "${part}" is malformed`);
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) {
        throw new CronParseError(`${spec.name} step "${stepText}" must be a positive number`);
      }
      step = Number(stepText);
    }
    let low: number;
    let high: number;
    if (rangeText === '*') {
      wildcard = true;
      low = spec.min;
      high = spec.name === 'day of week' ? 6 : spec.max;
    } else if (rangeText.includes('-')) {
      const [a, b] = rangeText.split('-');
      low = parseValue(a ?? '', spec);
      high = parseValue(b ?? '', spec);
      if (low > high) throw new CronParseError(`${spec.name} range "${rangeText}" runs backwards`);
    } else {
      low = parseValue(rangeText, spec);
      high = stepText === undefined ? low : spec.max;
    }
    for (let v = low; v <= high; v += step) values.add(spec.name === 'day of week' && v === 7 ? 0 : v);
  }
  return { values, wildcard: wildcard && !text.includes(',') };
}

export function parseCron(expression: string): CronSchedule {
  const trimmed = expression.trim();
  const expanded = MACROS[trimmed.toLowerCase()] ?? trimmed;
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5) {
    throw new CronParseError(`expected 5 fields (minute hour day month weekday), got ${parts.length}`);
  }
  const [minute, hour, dom, month, dow] = parts.map((part, i) => parseField(part, FIELDS[i] as FieldSpec));
  if (!minute || !hour || !dom || !month || !dow) throw new CronParseError('expected 5 fields');
  return {
    source: expression,
    minutes: [...minute.values].sort((a, b) => a - b),
    hours: [...hour.values].sort((a, b) => a - b),
    daysOfMonth: dom.values,
    months: month.values,
    daysOfWeek: dow.values,
    // As in Vixie cron, a field starting with `*` (including `*\/n`) does not restrict the day.
    domRestricted: !(parts[2] ?? '').startsWith('*'),
    dowRestricted: !(parts[4] ?? '').startsWith('*'),
    hourWildcard: hour.wildcard,
  };
}

/** Whether the schedule fires on a calendar day (month 1-12, day of week 0 = Sunday). */
export function matchesDay(cron: CronSchedule, month: number, day: number, weekday: number): boolean {
  if (!cron.months.has(month)) return false;
  const domOk = cron.daysOfMonth.has(day);
  const dowOk = cron.daysOfWeek.has(weekday);
  if (cron.domRestricted && cron.dowRestricted) return domOk || dowOk;
  if (cron.domRestricted) return domOk;
  if (cron.dowRestricted) return dowOk;
  return true;
}
