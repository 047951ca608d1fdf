/** Shared by the route modules: data ownership, list replies, the caller as a history actor. */
import {
  DEMO_BUYER_ACCOUNT_ID,
  DEMO_SUPPLIER_ACCOUNT_ID,
  type Reply,
  type RequestContext,
} from '../../http/types.js';
import { paginateByUpdatedAt, type Page } from '../../http/paging.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { indexedPage, type Partition } from '../list-index.js';
import { invalid, notFound } from '../errors.js';
import type { HistoryEntry } from '../types.js';

export const SUPPLIER_GROUP = 'Supplier API';
export const BUYER_GROUP = 'Buyer API';

/** The seeded data belongs to the two demo accounts; any other account sees nothing. */
export const isDemoSupplier = (ctx: RequestContext): boolean =>
  ctx.caller.accountId === DEMO_SUPPLIER_ACCOUNT_ID;
export const isDemoBuyer = (ctx: RequestContext): boolean => ctx.caller.accountId === DEMO_BUYER_ACCOUNT_ID;

export function requireOwner(owned: boolean, what: string, id: string): void {
  if (!owned) throw notFound(what, id);
}

export function callerActor(ctx: RequestContext): HistoryEntry['actor'] {
  return { type: 'api_client', id: ctx.caller.clientId, name: ctx.caller.clientName };
}

/** Comma-separated filter values (status=a,b), or null when absent. */
export function listParam(query: URLSearchParams, name: string): Set<string> | null {
  const raw = query.get(name);
  if (raw === null || raw.trim() === '') return null;
  return new Set(
    raw
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== ''),
  );
}

/** Damages one item of the next list response when the control plane asked for it (quarantine tests). */
function corruptOne(env: DomainEnv, data: Record<string, unknown>[]): void {
  const [first] = data;
  if (env.state.pendingCorruptions <= 0 || first === undefined) return;
  env.state.pendingCorruptions -= 1;
  if (typeof first['id'] === 'string') env.state.corruptedItemIds.push(first['id']);
  else if (typeof first['code'] === 'string') env.state.corruptedItemIds.push(first['code']);
  if ('created_at' in first) first['created_at'] = 12345;
  else if ('amount' in first) first['amount'] = 12.5;
  else first['name'] = null;
}

/** A page of items by (updated_at, id), rendered by `view` (which must return a copy). */
export function pageReply<T extends { id: string; updated_at: string }>(
  env: DomainEnv,
  items: Iterable<T>,
  query: URLSearchParams,
  view: (item: T) => Record<string, unknown> = (item) => ({ ...clone(item) }),
): Reply {
  return replyOf(env, paginateByUpdatedAt(items, query), view);
}

/** An empty collection, for callers that own none of the data (it has one index, empty). */
export const NOTHING: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Like `pageReply` for the large collections: pages through the collection's sorted index, keeping the rows
 * `matches` accepts, so a request costs about its page whatever the collection's size. A `partition` (one value
 * of a field the request filters on) scans only the rows holding that value.
 */
export function indexedPageReply<T extends { id: string; updated_at: string }>(
  env: DomainEnv,
  collection: Readonly<Record<string, T>>,
  query: URLSearchParams,
  matches: (item: T) => boolean,
  view: (item: T) => Record<string, unknown> = (item) => ({ ...clone(item) }),
  partition: Partition<T> | null = null,
): Reply {
  return replyOf(env, indexedPage(env, collection, query, matches, partition), view);
}

function replyOf<T>(env: DomainEnv, page: Page<T>, view: (item: T) => Record<string, unknown>): Reply {
  const data = page.data.map(view);
  corruptOne(env, data);
  return { status: 200, body: { data, next_cursor: page.next_cursor, has_more: page.has_more } };
}

/** Unpaged lists (`data` only). */
export function listReply(env: DomainEnv, items: readonly object[]): Reply {
  const data = items.map((item) => ({ ...clone(item) }) as Record<string, unknown>);
  corruptOne(env, data);
  return { status: 200, body: { data } };
}

export const ok = (body: unknown, headers?: Record<string, string>): Reply =>
  headers ? { status: 200, body, headers } : { status: 200, body };

/** Batch envelopes: `items` must be an array of 1..max; each item is validated on its own. */
export function batchItems(body: unknown, max: number): unknown[] {
  const items = typeof body === 'object' && body !== null ? (body as { items?: unknown }).items : undefined;
  if (!Array.isArray(items))
    throw invalid([{ field: 'items', code: 'required', message: 'items must be an array.' }]);
  if (items.length === 0 || items.length > max)
    throw invalid([
      { field: 'items', code: 'out_of_range', message: `items must hold 1 to ${max} entries.` },
    ]);
  const extra = Object.keys(body as object).filter((key) => key !== 'items');
  if (extra.length > 0)
    throw invalid(extra.map((key) => ({ field: key, code: 'unsupported_value', message: 'unknown field' })));
  return items;
}
