import * as z from 'zod';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+)(ms|s|m|h|d)/g;
const WHOLE = /^(?:\d+(?:ms|s|m|h|d))+$/;

export const DURATION_HINT = 'a duration like "30s", "15m", "2h" or "1d" (or milliseconds as a number)';

/** Parses `15m`, `2h`, `30s`, `1d`, `500ms` and compounds like `1h30m` into milliseconds. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(PART)) total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
  return total;
}

/** A duration field: accepts the text forms above or a non-negative integer of milliseconds; yields milliseconds. */
export function duration() {
  return z
    .union(
      [
        z
          .number()
          .int({ error: `expected ${DURATION_HINT}` })
          .nonnegative({ error: `expected ${DURATION_HINT}` }),
        z.string().regex(WHOLE, { error: `expected ${DURATION_HINT}` }),
      ],
      { error: `expected ${DURATION_HINT}` },
    )
    .transform((value) => (typeof value === 'number' ? value : (parseDuration(value) ?? 0)));
}
