/**
 * The buyer API's list resources the mirror can copy, and how each is read:
 * - incremental: `updated_since` lists, pulled with the engine's cursor per stream;
 * - window: paged lists without `updated_since` (Z-reports, item sales, inventory counts), re-read from a look-back
 *   window of dates before the stream's watermark; unchanged versions are dropped by the pull's seen-set;
 * - paged: small paged lists without any filter (branches), read whole on every run;
 * - list: small unpaged reference lists, refreshed whole and diffed by content hash.
 */
import type { ApiClient } from '../../client/index.js';
import { parsers } from '../../client/parsers.js';
import type { ResourceParser } from '../../client/parsing.js';

export const MIRROR_RESOURCES = [
  'orders',
  'expenses',
  'journal_lines',
  'suppliers',
  'products',
  'branches',
  'purchase_types',
  'expense_categories',
  'expense_accounts',
  'account_mappings',
  'z_reports',
  'item_sales',
  'inventory_counts',
] as const;

export type MirrorResourceName = (typeof MIRROR_RESOURCES)[number];

export type ApiRecord = Readonly<Record<string, unknown>>;

export interface PageRequest {
  cursor: string | null;
  /** incremental: sent as updated_since. */
  updatedSince: string | null;
  /** window: sent as `from` (inclusive date). */
  fromDate: string | null;
  limit: number;
  signal: AbortSignal;
}

export interface ApiPage {
  items: readonly ApiRecord[];
  quarantined: readonly { raw: unknown; reason: string }[];
  nextCursor: string | null;
  hasMore: boolean;
}

export interface ApiList {
  items: readonly ApiRecord[];
  quarantined: readonly { raw: unknown; reason: string }[];
}

interface ResourceBase {
  readonly name: MirrorResourceName;
  /** The API path; names the resource's stream. */
  readonly path: string;
  /** The bulk-export resource name, when POST /exports can deliver it. */
  readonly exportName?: string;
  readonly parser: ResourceParser<unknown>;
}

export interface PagedResource extends ResourceBase {
  readonly mode: 'incremental' | 'window' | 'paged';
  fetchPage(api: ApiClient, request: PageRequest): Promise<ApiPage>;
}

export interface ListResource extends ResourceBase {
  readonly mode: 'list';
  fetchAll(api: ApiClient, signal: AbortSignal): Promise<ApiList>;
  /** The row id of a record that carries none (reference rows are keyed by code). */
  keyOf(record: ApiRecord): string;
}

export type MirrorResource = PagedResource | ListResource;

function paging(request: PageRequest) {
  return {
    ...(request.cursor === null ? {} : { cursor: request.cursor }),
    limit: request.limit,
    signal: request.signal,
  };
}

function since(request: PageRequest) {
  return request.updatedSince === null ? {} : { updated_since: request.updatedSince };
}

function from(request: PageRequest) {
  return request.fromDate === null ? {} : { from: request.fromDate };
}

const text = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

const asRecords = (items: readonly unknown[]): ApiRecord[] => items as ApiRecord[];

function paged(
  spec: ResourceBase & { mode: PagedResource['mode'] },
  page: (
    api: ApiClient,
    request: PageRequest,
  ) => Promise<{
    items: readonly unknown[];
    quarantined: readonly { raw: unknown; reason: string }[];
    nextCursor: string | null;
    hasMore: boolean;
  }>,
): PagedResource {
  return {
    ...spec,
    async fetchPage(api, request) {
      const result = await page(api, request);
      return { ...result, items: asRecords(result.items) };
    },
  };
}

function listed(
  spec: ResourceBase,
  fetch: (api: ApiClient, signal: AbortSignal) => Promise<ApiList>,
  keyOf: (record: ApiRecord) => string,
): ListResource {
  return { ...spec, mode: 'list', fetchAll: fetch, keyOf };
}

const RESOURCES: Record<MirrorResourceName, MirrorResource> = {
  orders: paged(
    { name: 'orders', path: '/orders', exportName: 'orders', parser: parsers.order, mode: 'incremental' },
    (api, r) => api.purchases.orders({ ...paging(r), ...since(r) }).firstPage(),
  ),
  expenses: paged(
    {
      name: 'expenses',
      path: '/expenses',
      exportName: 'expenses',
      parser: parsers.expense,
      mode: 'incremental',
    },
    (api, r) => api.expenses.list({ ...paging(r), ...since(r) }).firstPage(),
  ),
  journal_lines: paged(
    {
      name: 'journal_lines',
      path: '/accounting/journal-lines',
      exportName: 'journal_lines',
      parser: parsers.journalLine,
      mode: 'incremental',
    },
    (api, r) => api.accounting.journalLines({ ...paging(r), ...since(r) }).firstPage(),
  ),
  suppliers: paged(
    {
      name: 'suppliers',
      path: '/suppliers',
      exportName: 'suppliers',
      parser: parsers.vendor,
      mode: 'incremental',
    },
    (api, r) => api.reference.suppliers({ ...paging(r), ...since(r) }).firstPage(),
  ),
  products: paged(
    {
      name: 'products',
      path: '/products',
      exportName: 'products',
      parser: parsers.catalogProduct,
      mode: 'incremental',
    },
    (api, r) => api.reference.products({ ...paging(r), ...since(r) }).firstPage(),
  ),
  branches: paged({ name: 'branches', path: '/branches', parser: parsers.branch, mode: 'paged' }, (api, r) =>
    api.reference.branches(paging(r)).firstPage(),
  ),
  z_reports: paged(
    {
      name: 'z_reports',
      path: '/sales/z-reports',
      exportName: 'z_reports',
      parser: parsers.zReport,
      mode: 'window',
    },
    (api, r) => api.sales.zReports({ ...paging(r), ...from(r) }).firstPage(),
  ),
  item_sales: paged(
    {
      name: 'item_sales',
      path: '/sales/item-sales',
      exportName: 'item_sales',
      parser: parsers.itemSale,
      mode: 'window',
    },
    (api, r) => api.sales.itemSales({ ...paging(r), ...from(r) }).firstPage(),
  ),
  inventory_counts: paged(
    {
      name: 'inventory_counts',
      path: '/inventory-counts',
      exportName: 'inventory_counts',
      parser: parsers.inventoryCount,
      mode: 'window',
    },
    (api, r) => api.inventory.counts({ ...paging(r), ...from(r), expand: ['lines'] }).firstPage(),
  ),
  purchase_types: listed(
    { name: 'purchase_types', path: '/purchase-types', parser: parsers.purchaseType },
    (api, signal) => api.reference.purchaseTypes({ signal }),
    (record) => text(record['code']),
  ),
  expense_categories: listed(
    { name: 'expense_categories', path: '/expense-categories', parser: parsers.expenseCategory },
    (api, signal) => api.reference.expenseCategories({ signal }),
    (record) => text(record['id']),
  ),
  expense_accounts: listed(
    { name: 'expense_accounts', path: '/expense-accounts', parser: parsers.expenseAccount },
    (api, signal) => api.reference.expenseAccounts({ signal }),
    (record) => text(record['code']),
  ),
  account_mappings: listed(
    { name: 'account_mappings', path: '/account-mappings', parser: parsers.accountMapping },
    (api, signal) => api.reference.accountMappings({ signal }),
    // A null purchase_type is the fallback row for every purchase type.
    (record) => `${text(record['category_id'])}/${text(record['purchase_type']) || '*'}`,
  ),
};

export function mirrorResource(name: MirrorResourceName): MirrorResource {
  return RESOURCES[name];
}
