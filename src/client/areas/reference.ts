/** Buyer reference data (plan Pro or higher). */
import { requestList, paginate, type ListResult, type Paginated } from '../pagination.js';
import { requestResource, type ClientContext } from '../context.js';
import type {
  AccountMapping,
  Branch,
  CatalogProduct,
  ExpenseAccount,
  ExpenseCategory,
  PurchaseType,
  Vendor,
} from '../../contract/index.js';
import { parsers } from '../parsers.js';
import type { ResourceParser } from '../parsing.js';
import type { CallOptions } from '../transport.js';
import { callOf, listSpec, type ListOptions, type UpdatedSince } from './common.js';

export function createReferenceApi(ctx: ClientContext) {
  const unpaged = <T>(route: string, parser: ResourceParser<T>, options?: CallOptions) =>
    requestList(ctx, { method: 'GET', route, ...callOf(options) }, parser);
  return {
    branches(options: ListOptions = {}): Paginated<Branch> {
      return paginate(ctx, listSpec('/branches', options), parsers.branch);
    },
    purchaseTypes(options?: CallOptions): Promise<ListResult<PurchaseType>> {
      return unpaged('/purchase-types', parsers.purchaseType, options);
    },
    suppliers(options: ListOptions<UpdatedSince> = {}): Paginated<Vendor> {
      return paginate(ctx, listSpec('/suppliers', options), parsers.vendor);
    },
    getSupplier(supplierId: string, options?: CallOptions): Promise<Vendor> {
      return requestResource(
        ctx,
        {
          method: 'GET',
          route: '/suppliers/{supplier_id}',
          params: { supplier_id: supplierId },
          ...callOf(options),
        },
        parsers.vendor,
      );
    },
    products(options: ListOptions<UpdatedSince> = {}): Paginated<CatalogProduct> {
      return paginate(ctx, listSpec('/products', options), parsers.catalogProduct);
    },
    expenseCategories(options?: CallOptions): Promise<ListResult<ExpenseCategory>> {
      return unpaged('/expense-categories', parsers.expenseCategory, options);
    },
    expenseAccounts(options?: CallOptions): Promise<ListResult<ExpenseAccount>> {
      return unpaged('/expense-accounts', parsers.expenseAccount, options);
    },
    accountMappings(options?: CallOptions): Promise<ListResult<AccountMapping>> {
      return unpaged('/account-mappings', parsers.accountMapping, options);
    },
  };
}

export type ReferenceApi = ReturnType<typeof createReferenceApi>;
