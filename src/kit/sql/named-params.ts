/**
 * Rewrites a statement written with named parameters (`:name` or `@name`) into the placeholder style of a
 * driver. String literals, quoted identifiers, comments, PostgreSQL casts (`::type`) and SQL Server variables
 * (`@@ROWCOUNT`) are left alone. A name used several times binds one value.
 */
export type PlaceholderStyle = 'dollar' | 'at' | 'question';

export interface CompiledStatement {
  readonly text: string;
  /** Distinct parameter names in first-use order ('dollar' binds them as $1..$n in this order). */
  readonly names: readonly string[];
  /** Names in placeholder order, repeats included ('question' binds them in this order). */
  readonly positions: readonly string[];
}

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;

export function compileNamedParams(sql: string, style: PlaceholderStyle): CompiledStatement {
  const names: string[] = [];
  const positions: string[] = [];
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql.charAt(i);
    const next = sql.charAt(i + 1);
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = closingQuote(sql, i, ch);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === '[') {
      const end = sql.indexOf(']', i);
      const stop = end === -1 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if ((ch === ':' || ch === '@') && next === ch) {
      out += ch + next;
      i += 2;
      while (i < sql.length && NAME_PART.test(sql.charAt(i))) out += sql.charAt(i++);
    } else if ((ch === ':' || ch === '@') && NAME_START.test(next) && !NAME_PART.test(sql.charAt(i - 1))) {
      let end = i + 1;
      while (end < sql.length && NAME_PART.test(sql.charAt(end))) end++;
      const name = sql.slice(i + 1, end);
      if (!names.includes(name)) names.push(name);
      positions.push(name);
      out += placeholder(style, name, names);
      i = end;
    } else {
      out += ch;
      i++;
    }
  }
  return { text: out, names, positions };
}

function placeholder(style: PlaceholderStyle, name: string, names: readonly string[]): string {
  switch (style) {
    case 'dollar':
      return `$${names.indexOf(name) + 1}`;
    case 'at':
      return `@${name}`;
    case 'question':
      return '?';
  }
}

/** Index just past the closing quote; a doubled quote inside the literal is an escaped quote. */
function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql.charAt(i) === quote) {
      if (sql.charAt(i + 1) === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}

/** Looks up every referenced name; a missing one is an error naming it (values are never printed). */
export function bindValues<V>(
  names: readonly string[],
  params: Readonly<Record<string, V | undefined>>,
): V[] {
  return names.map((name) => {
    const value = params[name];
    if (value === undefined) {
      throw new Error(`statement parameter :${name} has no value (known parameters: ${knownNames(params)})`);
    }
    return value;
  });
}

function knownNames(params: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(params);
  return keys.length === 0 ? 'none' : keys.sort().join(', ');
}
