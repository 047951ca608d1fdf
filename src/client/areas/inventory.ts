/** Buyer inventory counts. */
import { requestResource, type ClientContext } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import type { InventoryCount } from '../../contract/index.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf, listSpec, type DateRange, type Expand, type ListOptions } from './common.js';

export function createInventoryApi(ctx: ClientContext) {
  return {
    counts(
      options: ListOptions<DateRange & Expand & { branch_id?: string }> = {},
    ): Paginated<InventoryCount> {
      return paginate(ctx, listSpec('/inventory-counts', options), parsers.inventoryCount);
    },
    getCount(countId: string, options?: CallOptions): Promise<InventoryCount> {
      return requestResource(
        ctx,
        {
          method: 'GET',
          route: '/inventory-counts/{count_id}',
          params: { count_id: countId },
          ...callOf(options),
        },
        parsers.inventoryCount,
      );
    },
  };
}

export type InventoryApi = ReturnType<typeof createInventoryApi>;
