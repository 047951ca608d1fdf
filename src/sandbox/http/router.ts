/** Matches method + path against Express-style patterns (`/supplier/orders/:order_id`). */
import type { HttpMethod } from './types.js';

export interface CompiledRoute<R> {
  route: R;
  method: HttpMethod;
  regex: RegExp;
  names: string[];
}

export interface RouteMatch<R> {
  route: R;
  params: Record<string, string>;
}

export function compileRoutes<R extends { method: HttpMethod; path: string }>(
  routes: readonly R[],
): CompiledRoute<R>[] {
  return routes.map((route) => {
    const names: string[] = [];
    const source = route.path
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    return { route, method: route.method, regex: new RegExp(`^${source}/?$`), names };
  });
}

/** The first route whose pattern and method match; `pathExists` tells a 404 from a wrong method. */
export function matchRoute<R>(
  compiled: readonly CompiledRoute<R>[],
  method: string,
  path: string,
): RouteMatch<R> | null {
  for (const candidate of compiled) {
    if (candidate.method !== method) continue;
    const match = candidate.regex.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    candidate.names.forEach((name, index) => {
      const raw = match[index + 1] ?? '';
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        params[name] = raw;
      }
    });
    return { route: candidate.route, params };
  }
  return null;
}
