/** Supplier price lists: list, prices, buyer assignments (part 4.5). */
import type { RouteDef } from '../../http/types.js';
import { paginate } from '../../http/paging.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { assignBuyer, putPrices, unassignBuyer } from '../price-lists.js';
import { AssignBuyerBody } from '../requests.js';
import { parseBody } from '../validate.js';
import { SUPPLIER_GROUP, batchItems, isDemoSupplier, ok, requireOwner } from './common.js';

const CATALOG_WRITE = {
  accountType: 'supplier',
  group: SUPPLIER_GROUP,
  scope: 'supplier.catalog:write',
} as const;

const priceListId = (params: Readonly<Record<string, string>>): string => params['price_list_id'] ?? '';

export function supplierPriceListRoutes(env: DomainEnv): RouteDef[] {
  return [
    {
      ...CATALOG_WRITE,
      method: 'GET',
      path: '/supplier/price-lists',
      handle: (ctx) => {
        const lists = isDemoSupplier(ctx) ? Object.values(env.state.priceLists) : [];
        const page = paginate(lists, ctx.query, (list) => ({ at: list.updated_at, id: list.id }));
        return ok({
          data: page.data.map((list) => clone(list)),
          next_cursor: page.next_cursor,
          has_more: page.has_more,
        });
      },
    },
    {
      ...CATALOG_WRITE,
      method: 'PUT',
      path: '/supplier/price-lists/:price_list_id/prices',
      handle: (ctx) => {
        const id = priceListId(ctx.params);
        requireOwner(isDemoSupplier(ctx), 'Price list', id);
        return ok(putPrices(env, id, batchItems(ctx.body, 500)));
      },
    },
    {
      ...CATALOG_WRITE,
      method: 'POST',
      path: '/supplier/price-lists/:price_list_id/buyers',
      handle: (ctx) => {
        const id = priceListId(ctx.params);
        requireOwner(isDemoSupplier(ctx), 'Price list', id);
        assignBuyer(env, id, parseBody(AssignBuyerBody, ctx.body).buyer_id);
        return { status: 204 };
      },
    },
    {
      ...CATALOG_WRITE,
      method: 'DELETE',
      path: '/supplier/price-lists/:price_list_id/buyers/:buyer_id',
      handle: (ctx) => {
        const id = priceListId(ctx.params);
        requireOwner(isDemoSupplier(ctx), 'Price list', id);
        unassignBuyer(env, id, ctx.params['buyer_id'] ?? '');
        return { status: 204 };
      },
    },
  ];
}
