import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { OdataPaging } from './config.js';

export type Entity = Record<string, unknown>;

/** One page of a collection as the service answered it. */
export interface Page {
  readonly entities: Entity[];
  readonly nextLink: string | null;
}

/** Reads one page: the path and query string relative to the service root. */
export type PageReader = (target: string) => Promise<Page>;

export interface PagedQuery {
  /** The entity set with its $filter/$select/$expand query string (no $top, $skip or $orderby). */
  readonly base: string;
  /** The properties the collection is ordered by when paged with $top/$skip (its key). */
  readonly orderBy: readonly string[] | undefined;
  readonly what: string;
}

function fail(connector: string, message: string): ConnectorError {
  return new ConnectorError('connector_result_invalid', message, { connector, retryable: false });
}

function withOptions(base: string, options: string): string {
  return `${base}${base.includes('?') ? '&' : '?'}${options}`;
}

/**
 * Every entity of a collection. `next_link`: the service's own paging links; a page of `max_result_lines` entities
 * or more without a link is an error, since a service that caps results silently (Priority) would otherwise be
 * read as if that page were all. `top_skip`: pages of `page_size` ordered by the key, until an empty page: a page
 * shorter than asked for does not end the read, because a cap the installation set below the page size
 * (MAXAPILINES) makes every page short.
 */
export async function readAllPages(
  paging: OdataPaging,
  query: PagedQuery,
  readPage: PageReader,
  connector: string,
): Promise<Entity[]> {
  if (paging.mode === 'next_link') return readByLinks(paging, query, readPage, connector);
  if (query.orderBy === undefined || query.orderBy.length === 0) {
    throw fail(
      connector,
      `${query.what}: paging by $top/$skip needs an order: set ${query.what}.order_by to the key`,
    );
  }
  const order = `$orderby=${encodeURIComponent(query.orderBy.join(','))}`;
  const entities: Entity[] = [];
  for (;;) {
    const options = `${order}&$top=${paging.page_size}&$skip=${entities.length}`;
    const page = await readPage(withOptions(query.base, options));
    if (page.entities.length > paging.page_size) {
      throw fail(
        connector,
        `${query.what}: the service returned ${page.entities.length} entities for $top=${paging.page_size}, so it ` +
          'ignores $top and paging cannot be trusted: set entities.paging.mode to next_link if it sends paging links',
      );
    }
    if (page.entities.length === 0) return entities;
    entities.push(...page.entities);
  }
}

async function readByLinks(
  paging: OdataPaging,
  query: PagedQuery,
  readPage: PageReader,
  connector: string,
): Promise<Entity[]> {
  const entities: Entity[] = [];
  let next: string | null = query.base;
  while (next !== null) {
    const page = await readPage(next);
    entities.push(...page.entities);
    next = page.nextLink;
    const cap = paging.max_result_lines;
    if (next === null && cap !== undefined && page.entities.length >= cap) {
      throw fail(
        connector,
        `${query.what}: a page of ${page.entities.length} entities without a paging link, the service's result ` +
          `cap (entities.paging.max_result_lines = ${cap}): more may exist. Set entities.paging.mode to top_skip`,
      );
    }
  }
  return entities;
}
