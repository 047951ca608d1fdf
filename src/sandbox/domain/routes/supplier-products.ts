/** Supplier products: upsert, delete, batch upsert and availability (part 4.5). */
import { problemBody } from '../../http/problem.js';
import { ProblemError, type Reply, type RequestContext, type RouteDef } from '../../http/types.js';
import { deleteProduct, setAvailability, upsertProduct, upsertProductBatch } from '../catalog.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { invalid } from '../errors.js';
import { AvailabilityBody, ProductBody } from '../requests.js';
import { parseBody } from '../validate.js';
import { SUPPLIER_GROUP, batchItems, isDemoSupplier, ok, requireOwner } from './common.js';

const CATALOG_WRITE = {
  accountType: 'supplier',
  group: SUPPLIER_GROUP,
  scope: 'supplier.catalog:write',
} as const;

const sku = (params: Readonly<Record<string, string>>): string => params['sku'] ?? '';

function putProduct(env: DomainEnv, ctx: RequestContext): Reply {
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
}

/** When every item failed: a 422 problem body that also carries the per-item batch results. */
function productBatch(env: DomainEnv, ctx: RequestContext): Reply {
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
}

export function supplierProductRoutes(env: DomainEnv): RouteDef[] {
  return [
    {
      ...CATALOG_WRITE,
      method: 'PUT',
      path: '/supplier/products/:sku',
      handle: (ctx) => putProduct(env, ctx),
    },
    {
      ...CATALOG_WRITE,
      method: 'DELETE',
      path: '/supplier/products/:sku',
      handle: (ctx) => {
        requireOwner(isDemoSupplier(ctx), 'Product', sku(ctx.params));
        deleteProduct(env, sku(ctx.params));
        return { status: 204 };
      },
    },
    {
      ...CATALOG_WRITE,
      method: 'POST',
      path: '/supplier/products/batch',
      handle: (ctx) => productBatch(env, ctx),
    },
    {
      ...CATALOG_WRITE,
      method: 'POST',
      path: '/supplier/products/:sku/availability',
      handle: (ctx) => {
        requireOwner(isDemoSupplier(ctx), 'Product', sku(ctx.params));
        return ok(clone(setAvailability(env, sku(ctx.params), parseBody(AvailabilityBody, ctx.body))));
      },
    },
  ];
}
