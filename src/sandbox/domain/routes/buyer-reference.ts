/** Buyer reference data (part 4.6, scopes G16). */
import { BUYER_REFERENCE_SCOPES } from '../../../contract/index.js';
import type { RouteDef } from '../../http/types.js';
import { catalogProducts } from '../catalog-view.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { notFound } from '../errors.js';
import { BUYER_GROUP, isDemoBuyer, listReply, ok, pageReply, requireOwner } from './common.js';

type ReferencePath = keyof typeof BUYER_REFERENCE_SCOPES;
const BASE = { accountType: 'buyer', group: BUYER_GROUP, minPlan: 'Pro', method: 'GET' } as const;

/** A list paged by (updated_at, id). */
function pagedList(
  env: DomainEnv,
  path: ReferencePath,
  rows: () => readonly { id: string; updated_at: string }[],
): RouteDef {
  const scope = BUYER_REFERENCE_SCOPES[path];
  return { ...BASE, path, scope, handle: (ctx) => pageReply(env, isDemoBuyer(ctx) ? rows() : [], ctx.query) };
}

/** A short list answered whole. */
function wholeList(env: DomainEnv, path: ReferencePath, rows: () => readonly object[]): RouteDef {
  const scope = BUYER_REFERENCE_SCOPES[path];
  return { ...BASE, path, scope, handle: (ctx) => listReply(env, isDemoBuyer(ctx) ? rows() : []) };
}

export function buyerReferenceRoutes(env: DomainEnv): RouteDef[] {
  return [
    pagedList(env, '/branches', () => Object.values(env.state.branches)),
    wholeList(env, '/purchase-types', () => env.state.purchaseTypes),
    pagedList(env, '/suppliers', () => Object.values(env.state.vendors)),
    {
      ...BASE,
      path: '/suppliers/:supplier_id',
      scope: BUYER_REFERENCE_SCOPES['/suppliers/{supplier_id}'],
      handle: (ctx) => {
        const id = ctx.params['supplier_id'] ?? '';
        requireOwner(isDemoBuyer(ctx), 'Supplier', id);
        const vendor = env.state.vendors[id];
        if (!vendor) throw notFound('Supplier', id);
        return ok(clone(vendor));
      },
    },
    pagedList(env, '/products', () => catalogProducts(env)),
    wholeList(env, '/expense-categories', () => env.state.expenseCategories),
    wholeList(env, '/expense-accounts', () => env.state.expenseAccounts),
    wholeList(env, '/account-mappings', () => env.state.accountMappings),
  ];
}
