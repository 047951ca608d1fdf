/**
 * Human-readable log lines for a terminal: `12:04:05.123 WARN  connector is down connector=erp reason="..."`.
 * It formats pino's JSON lines after redaction, so it never sees a secret the JSON line would not show. The lines
 * carry the time of day only; the stream says the day and the zone in a heading before its first line and again
 * whenever the day changes: `-- 2026-11-30, times in Asia/Jerusalem (UTC+02:00) --`.
 */
import { Writable } from 'node:stream';

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line has, or that the line shows in its own place. */
const SHOWN_APART = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name']);

function value(field: unknown): string {
  if (typeof field === 'string') return /^[\w.:/@-]+$/.test(field) ? field : JSON.stringify(field);
  return JSON.stringify(field);
}

/** One formatter per zone: building an Intl.DateTimeFormat costs far more than formatting with it. */
const clockFormats = new Map<string | undefined, Intl.DateTimeFormat>();

function clockFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  let format = clockFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      ...(timeZone === undefined ? {} : { timeZone }),
    });
    clockFormats.set(timeZone, format);
  }
  return format;
}

function clockTime(ms: number, timeZone: string | undefined): string {
  const time = new Date(ms);
  return `${clockFormat(timeZone).format(time)}.${String(time.getMilliseconds()).padStart(3, '0')}`;
}

/** One pino JSON line as a pretty line; lines that are not JSON objects pass unchanged. */
export function prettyLine(line: string, timeZone?: string): string {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return line;
  const record = entry as Record<string, unknown>;
  const level =
    typeof record['level'] === 'number' ? (LEVELS[record['level']] ?? String(record['level'])) : '';
  const time = typeof record['time'] === 'number' ? clockTime(record['time'], timeZone) : '';
  const fields = Object.entries(record)
    .filter(([key]) => !SHOWN_APART.has(key))
    .map(([key, field]) => `${key}=${value(field)}`);
  const msg = typeof record['msg'] === 'string' ? record['msg'] : '';
  return [time, level.padEnd(5), msg, ...fields].filter((part) => part !== '').join(' ');
}

/** The heading of a day's lines: its date and the zone of the times on them, with the zone's offset that day. */
export function dayHeading(ms: number, timeZone: string | undefined): string {
  const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const parts = new Intl.DateTimeFormat('en-CA', {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    timeZone: zone,
    timeZoneName: 'longOffset',
  }).formatToParts(new Date(ms));
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((p) => p.type === type)?.value ?? '';
  const offset = part('timeZoneName') === 'GMT' ? 'UTC+00:00' : part('timeZoneName').replace('GMT', 'UTC');
  return `-- ${part('year')}-${part('month')}-${part('day')}, times in ${zone} (${offset}) --`;
}

/** A line's time, for its day heading; null for a line that is not a pino JSON line. */
function lineTime(line: string): number | null {
  const match = /"time":(\d+)/.exec(line);
  return match === null ? null : Number(match[1]);
}

/** A pino destination that writes pretty lines to `out`, each day's under its heading. */
export function prettyStream(out: { write(text: string): unknown }, timeZone?: string): Writable {
  let pending = '';
  let heading: string | undefined;
  const writeLine = (line: string): void => {
    const time = lineTime(line);
    const thisDay = time === null ? undefined : dayHeading(time, timeZone);
    if (thisDay !== undefined && thisDay !== heading) {
      heading = thisDay;
      out.write(`${thisDay}\n`);
    }
    out.write(`${prettyLine(line, timeZone)}\n`);
  };
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line !== '') writeLine(line);
      done();
    },
    final(done) {
      if (pending !== '') writeLine(pending);
      done();
    },
  });
}

/** `log.pretty`: true or false as given; "auto" pretty on a terminal, JSON lines into pipes and files. */
export function wantsPretty(setting: boolean | 'auto', isTty: boolean | undefined): boolean {
  return setting === 'auto' ? isTty === true : setting;
}
