/**
 * The parts of a control API request that come percent-encoded: a path segment or a query parameter that is not
 * valid percent-encoded UTF-8 (/jobs/%E0/run) is the caller's mistake, answered 400 naming it.
 */
export type Decoded<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/** The route's path parameters, decoded; the first one that cannot be, named. */
export function decodePathParams(raw: Readonly<Record<string, string>>): Decoded<Record<string, string>> {
  const value: Record<string, string> = {};
  for (const [name, text] of Object.entries(raw)) {
    const decoded = decoded1(text);
    if (decoded === undefined) {
      return { ok: false, problem: `path segment {${name}} "${text}" is not valid percent-encoded UTF-8` };
    }
    value[name] = decoded;
  }
  return { ok: true, value };
}

/** The query string's parameters; the first one whose name or value is not valid percent-encoding, named. */
export function decodeQuery(url: string): Decoded<URLSearchParams> {
  const at = url.indexOf('?');
  const query = at < 0 ? '' : url.slice(at + 1);
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const [name = '', text = ''] = pair.split('=', 2);
    const decodedName = decoded1(name.replaceAll('+', ' '));
    if (decodedName === undefined || decoded1(text.replaceAll('+', ' ')) === undefined) {
      return {
        ok: false,
        problem: `query parameter ${decodedName ?? `"${name}"`} is not valid percent-encoded UTF-8`,
      };
    }
  }
  return { ok: true, value: new URLSearchParams(query) };
}

function decoded1(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
