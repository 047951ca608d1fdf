/** Times as people read them on the status page: wall time in the configured zone, and how long ago. */

/** "just now", "3 min ago", "2 h ago", "4 days ago"; "in 5 min" for times ahead. */
export function relativeAge(ms: number, now: number): string {
  const delta = now - ms;
  const minutes = Math.round(Math.abs(delta) / 60_000);
  if (minutes < 1) return 'just now';
  const amount =
    minutes < 120
      ? `${minutes} min`
      : minutes < 48 * 60
        ? `${Math.round(minutes / 60)} h`
        : `${Math.round(minutes / 1440)} days`;
  return delta >= 0 ? `${amount} ago` : `in ${amount}`;
}

/** "2026-11-24 23:15:02" in `timeZone` (UTC when none is given). */
export function wallTime(ms: number, timeZone: string | undefined): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timeZone ?? 'UTC',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`;
}

/** Wall time and relative age, e.g. "2026-11-24 23:15:02 (3 min ago)"; null for an unknown time. */
export function shownTime(iso: string | null, now: number, timeZone: string | undefined): string | null {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${wallTime(ms, timeZone)} (${relativeAge(ms, now)})`;
}

/** "2026-11-24 23:15:02 Asia/Jerusalem": a time in machine-read answers (/readyz), in the configured zone, labelled. */
export function labelledTime(ms: number, timeZone: string | undefined): string {
  return `${wallTime(ms, timeZone)} ${timeZone ?? 'UTC'}`;
}
