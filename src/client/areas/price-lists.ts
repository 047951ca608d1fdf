/** Supplier price lists: list, prices (batched to 500 entries), buyer assignments. */
import type { BatchResponse, PriceList } from '../../contract/index.js';
import { BATCH_LIMITS, chunkCall, requestBatch, sendInBatches } from '../batch.js';
import { requestNoContent, type ClientContext } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf, listSpec, type ListOptions } from './common.js';
import type { AssignPriceListBuyerBody, PriceEntryBody } from '../request-types.js';

export function createPriceListsApi(ctx: ClientContext) {
  return {
    list(options: ListOptions = {}): Paginated<PriceList> {
      return paginate(ctx, listSpec('/supplier/price-lists', options), parsers.priceList);
    },
    /** PUT .../prices split into calls of 500 entries; result indexes point into `items`. */
    putPrices(
      priceListId: string,
      items: readonly PriceEntryBody[],
      options?: CallOptions,
    ): Promise<BatchResponse> {
      return sendInBatches(items, BATCH_LIMITS.priceEntries, (chunkItems, chunkIndex, chunkCount) =>
        requestBatch(ctx, {
          method: 'PUT',
          route: '/supplier/price-lists/{price_list_id}/prices',
          params: { price_list_id: priceListId },
          json: { items: chunkItems },
          ...callOf(chunkCall(options, chunkIndex, chunkCount)),
        }),
      );
    },
    assignBuyer(priceListId: string, body: AssignPriceListBuyerBody, options?: CallOptions): Promise<void> {
      return requestNoContent(ctx, {
        method: 'POST',
        route: '/supplier/price-lists/{price_list_id}/buyers',
        params: { price_list_id: priceListId },
        json: body,
        ...callOf(options),
      });
    },
    unassignBuyer(priceListId: string, buyerId: string, options?: CallOptions): Promise<void> {
      return requestNoContent(ctx, {
        method: 'DELETE',
        route: '/supplier/price-lists/{price_list_id}/buyers/{buyer_id}',
        params: { price_list_id: priceListId, buyer_id: buyerId },
        ...callOf(options),
      });
    },
  };
}

export type PriceListsApi = ReturnType<typeof createPriceListsApi>;
