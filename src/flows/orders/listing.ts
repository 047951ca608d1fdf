/**
 * GET /supplier/orders as the engine's page source. Items the client quarantined (a response that does not match
 * the contract) travel with the good ones, so they become dead letters with their reason instead of blocking the
 * page or being skipped silently.
 */
import { ApiError, type ApiClient } from '../../client/index.js';
import type { Order } from '../../contract/index.js';
import type { Page, PageRequest, RecordIdentity } from '../../engine/index.js';

export type ListedOrder =
  | { readonly kind: 'order'; readonly order: Order }
  | {
      readonly kind: 'quarantined';
      readonly id: string | null;
      readonly updatedAt: string | null;
      readonly reason: string;
      readonly raw: unknown;
    };

function textField(raw: unknown, field: string): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const value = (raw as Record<string, unknown>)[field];
  return typeof value === 'string' && value !== '' ? value : null;
}

export function orderPageSource(
  api: Pick<ApiClient, 'orders'>,
  pageSize: number,
  fetched: WeakSet<object>,
): (request: PageRequest, signal: AbortSignal) => Promise<Page<ListedOrder>> {
  return async (request, signal) => {
    const page = await api.orders
      .list({
        limit: pageSize,
        signal,
        ...(request.cursor === null ? {} : { cursor: request.cursor }),
        ...(request.updatedSince === null ? {} : { updated_since: request.updatedSince }),
      })
      .firstPage();
    const items: ListedOrder[] = page.items.map((order) => ({ kind: 'order', order }));
    for (const bad of page.quarantined) {
      items.push({
        kind: 'quarantined',
        id: textField(bad.raw, 'id'),
        updatedAt: textField(bad.raw, 'updated_at'),
        reason: bad.reason,
        raw: bad.raw,
      });
    }
    for (const item of items) fetched.add(item);
    return { items, nextCursor: page.nextCursor, hasMore: page.hasMore };
  };
}

export function identifyListedOrder(item: ListedOrder): RecordIdentity {
  if (item.kind === 'order') return { id: item.order.id, updatedAt: item.order.updated_at };
  if (item.id === null || item.updatedAt === null) {
    throw new Error(`order quarantined without a readable id and updated_at: ${item.reason}`);
  }
  return { id: item.id, updatedAt: item.updatedAt };
}

/** The API no longer accepts a stored pass cursor (G33: 422 on the cursor field). */
export function isStaleCursorError(error: unknown): boolean {
  return error instanceof ApiError && error.status === 422;
}
