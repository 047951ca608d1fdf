/**
 * OData literals (OData v4 ABNF, part 2 "URL Conventions", section 5.1.1.1): the only way a value reaches a URL.
 * A `:name` placeholder in a configured `$filter` or key is replaced by the literal of its value; a value is never
 * pasted into a URL as it came.
 */

export type ODataValue = string | number | boolean | null;

/** The literal for one value: text quoted with its quotes doubled, numbers in decimal notation. */
export function odataLiteral(value: ODataValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('a number that is not finite has no OData literal');
    return String(value);
  }
  return `'${value.replaceAll("'", "''")}'`;
}

const PLACEHOLDER = /'[^']*(?:''[^']*)*'|:([A-Za-z_][A-Za-z0-9_]*)/g;

/** The `:name` placeholders of a filter, outside its quoted strings. */
export function placeholders(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) if (match[1] !== undefined) names.push(match[1]);
  return names;
}

/**
 * Binds a configured filter or key predicate: each `:name` outside a quoted string becomes the literal of
 * `params[name]` (text always quoted, even when it looks like a number or a date). Throws on a name with no
 * value, naming it (never a value).
 */
export function bindTemplate(
  template: string,
  params: Readonly<Record<string, ODataValue>>,
  where: string,
): string {
  return template.replace(PLACEHOLDER, (whole, name: string | undefined) => {
    if (name === undefined) return whole;
    if (!(name in params)) throw new Error(`${where}: parameter :${name} has no value`);
    return odataLiteral(params[name] ?? null);
  });
}

const KEYWORDS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'and', 'or', 'not', 'null', 'true', 'false']);
const TOKENS = /'[^']*(?:''[^']*)*'|:[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_/]*|\S/g;

/** The property names a filter compares (the first segment of each path), for doctor's $metadata check. */
export function filterProperties(filter: string): string[] {
  const names = new Set<string>();
  for (const [token] of filter.matchAll(TOKENS)) {
    if (token.startsWith("'") || token.startsWith(':') || !/^[A-Za-z_]/.test(token)) continue;
    if (KEYWORDS.has(token) || /^\d/.test(token)) continue;
    names.add(token.split('/')[0] ?? token);
  }
  return [...names];
}

/** A key predicate, `(5)` or `('SO1')` or `(IVNUM='T1',IVTYPE='A')`, from the key properties and their values. */
export function keyPredicate(keys: readonly string[], values: Readonly<Record<string, ODataValue>>): string {
  if (keys.length === 1) return `(${odataLiteral(values[keys[0] ?? ''] ?? null)})`;
  return `(${keys.map((key) => `${key}=${odataLiteral(values[key] ?? null)}`).join(',')})`;
}
