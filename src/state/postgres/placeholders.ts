/**
 * Rewrites the state's `?` placeholders into PostgreSQL's `$1, $2, ...`, leaving question marks inside string
 * literals, quoted identifiers and comments alone.
 */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const char = sql[i] as string;
    const skipTo = skippedUntil(sql, i);
    if (skipTo > i) {
      out += sql.slice(i, skipTo);
      i = skipTo;
    } else if (char === '?') {
      n += 1;
      out += `$${n}`;
      i += 1;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}

/** The index after a literal, quoted identifier or comment starting at `i`, or `i` when none starts there. */
function skippedUntil(sql: string, i: number): number {
  const char = sql[i];
  if (char === "'" || char === '"') {
    let j = i + 1;
    while (j < sql.length) {
      if (sql[j] === char) {
        if (sql[j + 1] === char) j += 2;
        else return j + 1;
      } else j += 1;
    }
    return sql.length;
  }
  if (char === '-' && sql[i + 1] === '-') {
    const end = sql.indexOf('\n', i);
    return end < 0 ? sql.length : end + 1;
  }
  if (char === '/' && sql[i + 1] === '*') {
    const end = sql.indexOf('*/', i + 2);
    return end < 0 ? sql.length : end + 2;
  }
  return i;
}
