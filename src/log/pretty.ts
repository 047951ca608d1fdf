/**
 * Human-readable log lines for a terminal: `12:04:05.123 WARN  connector is down connector=erp reason="..."`.
 * It formats pino's JSON lines after redaction, so it never sees a secret the JSON line would not show.
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

/** A pino destination that writes pretty lines to `out`. */
export function prettyStream(out: { write(text: string): unknown }, timeZone?: string): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line !== '') out.write(`${prettyLine(line, timeZone)}\n`);
      done();
    },
    final(done) {
      if (pending !== '') out.write(`${prettyLine(pending, timeZone)}\n`);
      done();
    },
  });
}

/** `log.pretty`: true or false as given; "auto" pretty on a terminal, JSON lines into pipes and files. */
export function wantsPretty(setting: boolean | 'auto', isTty: boolean | undefined): boolean {
  return setting === 'auto' ? isTty === true : setting;
}
