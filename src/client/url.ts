/** Path templates and query strings as the contract spells them (snake_case, comma-separated lists). */
import { ClientConfigError } from './errors.js';

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;
export type QueryInput = Readonly<Record<string, QueryValue>>;

/** Fills `{name}` segments, URL-encoding each value (SKUs may hold slashes or spaces). */
export function buildPath(route: string, params: Readonly<Record<string, string>>): string {
  return route.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value.length === 0) {
      throw new ClientConfigError(
        'missing_path_parameter',
        `path parameter ${name} is required for ${route}`,
      );
    }
    return encodeURIComponent(value);
  });
}

/** `?a=1&b=x,y` in key order given; undefined and null are left out; arrays become comma lists. */
export function buildQueryString(query: QueryInput | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) params.append(key, value.join(','));
      continue;
    }
    params.append(key, String(value));
  }
  const text = params.toString();
  return text.length > 0 ? `?${text}` : '';
}
