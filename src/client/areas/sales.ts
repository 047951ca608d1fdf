/** Buyer sales: Z-reports (batches of 500) and item sales (batches of 5000). */
import type { BatchResponse, ItemSale, ZReport } from '../../contract/index.js';
import type { ItemSaleInputBody, ZReportInputBody } from '../request-types.js';
import { BATCH_LIMITS, chunkCall, requestBatch, sendInBatches } from '../batch.js';
import type { ClientContext } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf, listSpec, type DateRange, type ListOptions } from './common.js';

export function createSalesApi(ctx: ClientContext) {
  const push = (route: string, limit: number, items: readonly unknown[], options?: CallOptions) =>
    sendInBatches(items, limit, (chunkItems, chunkIndex, chunkCount) =>
      requestBatch(ctx, {
        method: 'POST',
        route,
        json: { items: chunkItems },
        ...callOf(chunkCall(options, chunkIndex, chunkCount)),
      }),
    );
  return {
    zReports(options: ListOptions<DateRange & { branch_id?: string }> = {}): Paginated<ZReport> {
      return paginate(ctx, listSpec('/sales/z-reports', options), parsers.zReport);
    },
    /** Result keys have the form branch_id/z_number; indexes point into `items`. */
    pushZReports(items: readonly ZReportInputBody[], options?: CallOptions): Promise<BatchResponse> {
      return push('/sales/z-reports', BATCH_LIMITS.zReports, items, options);
    },
    itemSales(
      options: ListOptions<DateRange & { branch_id?: string; z_number?: string }> = {},
    ): Paginated<ItemSale> {
      return paginate(ctx, listSpec('/sales/item-sales', options), parsers.itemSale);
    },
    /** Result keys have the form branch_id/z_number/line_number; indexes point into `items`. */
    pushItemSales(items: readonly ItemSaleInputBody[], options?: CallOptions): Promise<BatchResponse> {
      return push('/sales/item-sales', BATCH_LIMITS.itemSales, items, options);
    },
  };
}

export type SalesApi = ReturnType<typeof createSalesApi>;
