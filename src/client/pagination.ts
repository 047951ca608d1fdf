/**
 * Cursor pagination as async iterators. Each page is parsed item by item: bad items are quarantined alongside the
 * good ones; a bad envelope is an error, never an empty page (so a caller's cursor cannot jump past unread data).
 */
import { requestSent } from '../shared/request-sent.js';
import { ClientConfigError } from './errors.js';
import { invalidResponse, type ClientContext } from './context.js';
import { dataElementTexts } from './item-texts.js';
import { isRecord, parseItem, type QuarantinedItem, type ResourceParser } from './parsing.js';
import type { RawResponse, RequestSpec } from './transport.js';
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
  /**
   * With `itemTexts: true`: the JSON text of each of `items` (same order) as the API sent it, for flows that keep
   * items as JSON: cut from the response body, which costs about half of serializing the parsed items again. Where
   * the body does not split into as many elements as JSON.parse found, each item's JSON as parsed instead.
   */
  itemTexts?: string[];
}

export interface PageOptions {
  /** Also give each item's JSON text as received (Page.itemTexts). */
  itemTexts?: boolean;
  /**
   * pages() only: ask for the next page as soon as a page's envelope is read, before its items are parsed and
   * handed out, so the API prepares it meanwhile. A caller that stops early leaves one request unread.
   */
  readAhead?: boolean;
}

export interface ItemsOptions {
  /** Receives each quarantined item; without it quarantined items are only counted. */
  onQuarantine?: (item: QuarantinedItem) => void;
}

export interface Paginated<T> {
  pages(options?: PageOptions): AsyncGenerator<Page<T>, void, undefined>;
  items(options?: ItemsOptions): AsyncGenerator<T, void, undefined>;
  firstPage(options?: PageOptions): Promise<Page<T>>;
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
): { items: T[]; quarantined: QuarantinedItem[]; positions: number[] } {
  const items: T[] = [];
  const quarantined: QuarantinedItem[] = [];
  const positions: number[] = [];
  data.forEach((raw, index) => {
    const parsed = parseItem(parser, raw, index, ctx.drift);
    if ('quarantined' in parsed) quarantined.push(parsed.quarantined);
    else {
      items.push(parsed.value);
      positions.push(index);
    }
  });
  return { items, quarantined, positions };
}

/** The JSON text of the items kept from `data`, as the API sent them (see Page.itemTexts). */
function textsOf(text: string | undefined, data: readonly unknown[], positions: readonly number[]): string[] {
  const texts = text === undefined ? null : dataElementTexts(text);
  const whole = texts !== null && texts.length === data.length;
  return positions.map((position) => (whole ? (texts[position] as string) : JSON.stringify(data[position])));
}

/** A page as received: its envelope checked, its items not parsed yet. */
interface ReceivedPage {
  response: RawResponse;
  data: unknown[];
  cursor: string | undefined;
  nextCursor: string | null;
  hasMore: boolean;
}

async function receivePage(
  ctx: ClientContext,
  spec: RequestSpec,
  cursor: string | undefined,
): Promise<ReceivedPage> {
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
  return { response, data: body['data'], cursor, nextCursor, hasMore };
}

function parsePage<T>(
  ctx: ClientContext,
  received: ReceivedPage,
  parser: ResourceParser<T>,
  options: PageOptions,
): Page<T> {
  const { response, data, cursor, nextCursor, hasMore } = received;
  const { items, quarantined, positions } = parseData(ctx, data, parser);
  const page: Page<T> = { items, quarantined, cursor, nextCursor, hasMore, requestId: response.requestId };
  if (options.itemTexts === true) page.itemTexts = textsOf(response.text, data, positions);
  return page;
}

async function fetchPage<T>(
  ctx: ClientContext,
  spec: RequestSpec,
  parser: ResourceParser<T>,
  cursor: string | undefined,
  options: PageOptions,
): Promise<Page<T>> {
  return parsePage(ctx, await receivePage(ctx, spec, cursor), parser, options);
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

  async function* pages(options: PageOptions = {}): AsyncGenerator<Page<T>, void, undefined> {
    let next = receivePage(ctx, baseSpec, startCursor);
    for (;;) {
      const received = await next;
      const more = received.hasMore && received.nextCursor !== null;
      if (more && options.readAhead === true) {
        next = receivePage(ctx, baseSpec, received.nextCursor ?? undefined);
        next.catch(() => undefined); // awaited on the next turn, or dropped if the caller stops first
        await requestSent();
      }
      yield parsePage(ctx, received, parser, options);
      if (!more) return;
      if (options.readAhead !== true) next = receivePage(ctx, baseSpec, received.nextCursor ?? undefined);
    }
  }

  async function* items(options: ItemsOptions = {}): AsyncGenerator<T, void, undefined> {
    for await (const page of pages()) {
      for (const item of page.quarantined) options.onQuarantine?.(item);
      yield* page.items;
    }
  }

  return {
    pages,
    items,
    firstPage: (options: PageOptions = {}) => fetchPage(ctx, baseSpec, parser, startCursor, options),
  };
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
  const { items, quarantined } = parseData(ctx, body['data'], parser);
  return { items, quarantined, requestId: response.requestId };
}
