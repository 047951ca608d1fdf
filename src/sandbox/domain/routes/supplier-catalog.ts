/** Supplier catalog, availability, price lists and assignments (part 4.5). */
import { problemBody } from '../../http/problem.js';
import { ProblemError, type RouteDef } from '../../http/types.js';
import { paginate } from '../../http/paging.js';
import { deleteProduct, setAvailability, upsertProduct, upsertProductBatch } from '../catalog.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { invalid } from '../errors.js';
import { assignBuyer, putPrices, unassignBuyer } from '../price-lists.js';
import { AssignBuyerBody, AvailabilityBody, ProductBody } from '../requests.js';
import { parseBody } from '../validate.js';
import { SUPPLIER_GROUP, batchItems, isDemoSupplier, ok, requireOwner } from './common.js';

const SCOPE = 'supplier.catalog:write';

export function supplierCatalogRoutes(env: DomainEnv): RouteDef[] {
  const base = { accountType: 'supplier', group: SUPPLIER_GROUP, scope: SCOPE } as const;
  const sku = (params: Readonly<Record<string, string>>): string => params['sku'] ?? '';
  return [
    {
      ...base,
      method: 'PUT',
      path: '/supplier/products/:sku',
      handle: (ctx) => {
        requireOwner(isDemoSupplier(ctx), 'Product', sku(ctx.params));
        const skuValue = sku(ctx.params);
        if (skuValue.length < 1 || skuValue.length > 64)
          throw invalid([{ field: 'sku', code: 'too_long', message: 'sku must be 1 to 64 characters.' }]);
        const { product, created } = upsertProduct(
          env,
          ctx.caller.accountId,
          skuValue,
          parseBody(ProductBody, ctx.body),
        );
        return { status: created ? 201 : 200, body: clone(product) };
      },
    },
    {
      ...base,
      method: 'DELETE',
      path: '/supplier/products/:sku',
      handle: (ctx) => {
        requireOwner(isDemoSupplier(ctx), 'Product', sku(ctx.params));
        deleteProduct(env, sku(ctx.params));
        return { status: 204 };
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/supplier/products/batch',
      // Every item failed: 422 problem body that also carries the per-item batch results.
      handle: (ctx) => {
        requireOwner(isDemoSupplier(ctx), 'Account', ctx.caller.accountId);
        const result = upsertProductBatch(env, ctx.caller.accountId, batchItems(ctx.body, 500));
        const allFailed = result.summary.failed === result.summary.total;
        if (!allFailed) return ok(result);
        const errors = result.items.flatMap((item) => item.errors ?? []);
        const problem = problemBody(
          new ProblemError(422, 'validation_error', 'Every item of the batch failed.', { errors }),
          ctx.requestId,
          ctx.path,
        );
        return {
          status: 422,
          body: { ...problem, ...result },
          headers: { 'Content-Type': 'application/problem+json' },
        };
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/supplier/products/:sku/availability',
      handle: (ctx) => {
        requireOwner(isDemoSupplier(ctx), 'Product', sku(ctx.params));
        return ok(clone(setAvailability(env, sku(ctx.params), parseBody(AvailabilityBody, ctx.body))));
      },
    },
    {
      ...base,
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
      ...base,
      method: 'PUT',
      path: '/supplier/price-lists/:price_list_id/prices',
      handle: (ctx) => {
        const id = ctx.params['price_list_id'] ?? '';
        requireOwner(isDemoSupplier(ctx), 'Price list', id);
        return ok(putPrices(env, id, batchItems(ctx.body, 500)));
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/supplier/price-lists/:price_list_id/buyers',
      handle: (ctx) => {
        const id = ctx.params['price_list_id'] ?? '';
        requireOwner(isDemoSupplier(ctx), 'Price list', id);
        assignBuyer(env, id, parseBody(AssignBuyerBody, ctx.body).buyer_id);
        return { status: 204 };
      },
    },
    {
      ...base,
      method: 'DELETE',
      path: '/supplier/price-lists/:price_list_id/buyers/:buyer_id',
      handle: (ctx) => {
        const id = ctx.params['price_list_id'] ?? '';
        requireOwner(isDemoSupplier(ctx), 'Price list', id);
        unassignBuyer(env, id, ctx.params['buyer_id'] ?? '');
        return { status: 204 };
      },
    },
  ];
}
