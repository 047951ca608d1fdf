/**
 * Cursor pagination as async iterators. Each page is parsed item by item: bad items are quarantined alongside the
 * good ones; a bad envelope is an error, never an empty page (so a caller's cursor cannot jump past unread data).
 */
import { ClientConfigError } from './errors.js';
import { invalidResponse, type ClientContext } from './context.js';
import { isRecord, parseItem, type QuarantinedItem, type ResourceParser } from './parsing.js';
import type { RequestSpec } from './transport.js';
import type { QueryInput } from './url.js';

export const MAX_PAGE_SIZE = 200;

/** Query fields every cursor-paged list accepts. */
export interface PageQuery {
  /** Start from this cursor (a previous page's nextCursor). */
  cursor?: string;
  /** Page size, 1..200 (server default 50). */
  limit?: number;
}

export interface Page<T> {
  items: T[];
  quarantined: QuarantinedItem[];
  /** The cursor this page was fetched with (undefined for the first page). */
  cursor: string | undefined;
  nextCursor: string | null;
  hasMore: boolean;
  requestId: string | null;
}

export interface ItemsOptions {
  /** Receives each quarantined item; without it quarantined items are only counted. */
  onQuarantine?: (item: QuarantinedItem) => void;
}

export interface Paginated<T> {
  pages(): AsyncGenerator<Page<T>, void, undefined>;
  items(options?: ItemsOptions): AsyncGenerator<T, void, undefined>;
  firstPage(): Promise<Page<T>>;
}

/** An unpaged list (`data` only), such as GET /webhooks or GET /purchase-types. */
export interface ListResult<T> {
  items: T[];
  quarantined: QuarantinedItem[];
  requestId: string | null;
}

function checkLimit(limit: unknown): void {
  if (limit === undefined) return;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new ClientConfigError('invalid_limit', `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
}

function parseData<T>(
  ctx: ClientContext,
  data: readonly unknown[],
  parser: ResourceParser<T>,
): { items: T[]; quarantined: QuarantinedItem[] } {
  const items: T[] = [];
  const quarantined: QuarantinedItem[] = [];
  data.forEach((raw, index) => {
    const parsed = parseItem(parser, raw, index, ctx.drift);
    if ('quarantined' in parsed) quarantined.push(parsed.quarantined);
    else items.push(parsed.value);
  });
  return { items, quarantined };
}

async function fetchPage<T>(
  ctx: ClientContext,
  spec: RequestSpec,
  parser: ResourceParser<T>,
  cursor: string | undefined,
): Promise<Page<T>> {
  const query: QueryInput = { ...spec.query, cursor };
  const pageSpec: RequestSpec = { ...spec, query };
  const response = await ctx.transport.request(pageSpec);
  const body = response.body;
  if (!isRecord(body) || !Array.isArray(body['data'])) {
    throw invalidResponse(pageSpec, response, 'page envelope without a data array');
  }
  const hasMore = body['has_more'];
  const nextCursor = body['next_cursor'] ?? null;
  if (typeof hasMore !== 'boolean') throw invalidResponse(pageSpec, response, 'has_more is not a boolean');
  if (nextCursor !== null && typeof nextCursor !== 'string') {
    throw invalidResponse(pageSpec, response, 'next_cursor is neither a string nor null');
  }
  if (hasMore && (nextCursor === null || nextCursor.length === 0)) {
    throw invalidResponse(pageSpec, response, 'has_more is true but next_cursor is missing');
  }
  const { items, quarantined } = parseData(ctx, body['data'], parser);
  return { items, quarantined, cursor, nextCursor, hasMore, requestId: response.requestId };
}

export function paginate<T>(
  ctx: ClientContext,
  spec: Omit<RequestSpec, 'method'>,
  parser: ResourceParser<T>,
): Paginated<T> {
  const query = spec.query ?? {};
  checkLimit(query['limit']);
  const startCursor = typeof query['cursor'] === 'string' ? query['cursor'] : undefined;
  const baseSpec: RequestSpec = { ...spec, method: 'GET' };

  async function* pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor = startCursor;
    for (;;) {
      const page = await fetchPage(ctx, baseSpec, parser, cursor);
      yield page;
      if (!page.hasMore || page.nextCursor === null) return;
      cursor = page.nextCursor;
    }
  }

  async function* items(options: ItemsOptions = {}): AsyncGenerator<T, void, undefined> {
    for await (const page of pages()) {
      for (const item of page.quarantined) options.onQuarantine?.(item);
      yield* page.items;
    }
  }

  return { pages, items, firstPage: () => fetchPage(ctx, baseSpec, parser, startCursor) };
}

export async function requestList<T>(
  ctx: ClientContext,
  spec: RequestSpec,
  parser: ResourceParser<T>,
): Promise<ListResult<T>> {
  const response = await ctx.transport.request(spec);
  const body = response.body;
  if (!isRecord(body) || !Array.isArray(body['data'])) {
    throw invalidResponse(spec, response, 'list without a data array');
  }
  return { ...parseData(ctx, body['data'], parser), requestId: response.requestId };
}
