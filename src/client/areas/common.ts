/** Option shapes shared by the endpoint modules. Every method's last parameter extends CallOptions. */
import type { PageQuery } from '../pagination.js';
import type { CallOptions } from '../transport.js';
import type { QueryInput } from '../url.js';

/** Filters of a cursor-paged list plus paging and per-call options. */
export type ListOptions<Filters extends object = object> = Filters & PageQuery & CallOptions;

export interface UpdatedSince {
  /** Only items whose updated_at is strictly after this timestamp (RFC 3339 with offset). */
  updated_since?: string;
}

export interface DateRange {
  /** Inclusive date (YYYY-MM-DD). */
  from?: string;
  /** Inclusive date (YYYY-MM-DD). */
  to?: string;
}

export interface Expand {
  /** Sent comma-separated, e.g. ['lines', 'files'] or ['-lines']. */
  expand?: readonly string[];
}

/** Per-call options as a RequestSpec fragment (absent when empty). */
export function callOf(options: CallOptions | undefined): { call?: CallOptions } {
  if (!options) return {};
  const call: CallOptions = {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
    ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
  };
  return Object.keys(call).length > 0 ? { call } : {};
}

/** A list request fragment: the filters become the query, the per-call options stay per-call. */
export function listSpec(route: string, options: object, params?: Readonly<Record<string, string>>) {
  const { signal: _signal, deadlineMs: _deadline, idempotencyKey: _key, ...filters } = options as CallOptions;
  return {
    route,
    query: filters as QueryInput,
    ...(params ? { params } : {}),
    ...callOf(options as CallOptions),
  };
}
