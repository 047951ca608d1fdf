/** Rows of one bulk-export resource for an account, filtered by date range and branches. */
import { DEMO_BUYER_ACCOUNT_ID, DEMO_SUPPLIER_ACCOUNT_ID } from '../http/types.js';
import { inDateRange } from '../http/paging.js';
import { catalogProducts } from './catalog-view.js';
import { documentView } from './documents.js';
import type { DomainEnv } from './env.js';
import { clone } from './env.js';
import { inventoryView } from './inventory.js';
import { orderView, visibleToSupplier } from './orders.js';

export interface ExportFilter {
  from?: string;
  to?: string;
  branchIds?: readonly string[];
}

type Row = Record<string, unknown>;
interface Source {
  rows: Row[];
  date: (row: Row) => string | undefined;
  branch: (row: Row) => string | undefined;
}

const field =
  (name: string) =>
  (row: Row): string | undefined =>
    typeof row[name] === 'string' ? row[name] : undefined;
const nested =
  (name: string) =>
  (row: Row): string | undefined => {
    const value = row[name];
    const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
    return typeof id === 'string' ? id : undefined;
  };
const copy = (items: readonly object[]): Row[] => items.map((item) => ({ ...clone(item) }) as Row);

function buyerSources(env: DomainEnv): Record<string, Source> {
  const { state } = env;
  return {
    orders: {
      rows: Object.values(state.orders).map((order) => orderView(order, 'buyer')),
      date: field('created_at'),
      branch: nested('branch'),
    },
    documents: {
      rows: Object.values(state.documents).map((doc) => documentView(doc, null)),
      date: field('date'),
      branch: nested('branch'),
    },
    expenses: {
      rows: copy(Object.values(state.expenses)),
      date: field('doc_date'),
      branch: field('branch_id'),
    },
    journal_lines: {
      rows: copy(Object.values(state.journalLines)),
      date: field('doc_date'),
      branch: field('branch_id'),
    },
    suppliers: {
      rows: copy(Object.values(state.vendors)),
      date: field('updated_at'),
      branch: () => undefined,
    },
    products: { rows: copy(catalogProducts(env)), date: field('updated_at'), branch: () => undefined },
    inventory_counts: {
      rows: Object.values(state.inventoryCounts).map((count) => inventoryView(count, true)),
      date: field('counted_at'),
      branch: field('branch_id'),
    },
    z_reports: {
      rows: copy(Object.values(state.zReports)),
      date: field('closed_at'),
      branch: field('branch_id'),
    },
    item_sales: {
      rows: copy(Object.values(state.itemSales)),
      date: field('value_date'),
      branch: field('branch_id'),
    },
    card_transactions: { rows: [], date: () => undefined, branch: () => undefined },
  };
}

function supplierSources(env: DomainEnv): Record<string, Source> {
  const { state } = env;
  return {
    orders: {
      rows: Object.values(state.orders)
        .filter(visibleToSupplier)
        .map((order) => orderView(order, 'supplier')),
      date: field('created_at'),
      branch: nested('branch'),
    },
    documents: {
      rows: Object.values(state.documents).map((doc) => documentView(doc, null)),
      date: field('date'),
      branch: nested('branch'),
    },
    products: {
      rows: copy(Object.values(state.products)),
      date: field('updated_at'),
      branch: () => undefined,
    },
  };
}

export function exportRows(env: DomainEnv, accountId: string, resource: string, filter: ExportFilter): Row[] {
  const sources =
    accountId === DEMO_BUYER_ACCOUNT_ID
      ? buyerSources(env)
      : accountId === DEMO_SUPPLIER_ACCOUNT_ID
        ? supplierSources(env)
        : {};
  const source = sources[resource];
  if (!source) return [];
  const range = {
    ...(filter.from === undefined ? {} : { from: filter.from }),
    ...(filter.to === undefined ? {} : { to: filter.to }),
  };
  const branches = filter.branchIds && filter.branchIds.length > 0 ? new Set(filter.branchIds) : null;
  return source.rows.filter((row) => {
    const date = source.date(row);
    if (
      (range.from !== undefined || range.to !== undefined) &&
      (date === undefined || !inDateRange(date, range))
    )
      return false;
    if (branches === null) return true;
    const branch = source.branch(row);
    return branch !== undefined && branches.has(branch);
  });
}
