/** The sandbox domain's whole state: plain JSON, so a snapshot is a deep copy and restore is its inverse. */
import type {
  AccountMapping,
  Branch,
  BuyerInvitation,
  Expense,
  ExpenseAccount,
  ExpenseCategory,
  ExportBatch,
  InventoryCount,
  ItemSale,
  JournalLine,
  Order,
  PriceEntry,
  PriceList,
  Product,
  PurchaseDocument,
  PurchaseType,
  SupplierBuyer,
  Vendor,
  ZReport,
} from './types.js';

/** Sandbox-side bookkeeping about an order, for "exactly once" assertions in tests. */
export interface OrderTally {
  acknowledgements: number;
  confirmations: number;
  rejections: number;
  /** Canonical JSON of the body that confirmed the order, for the idempotent repeat. */
  confirmBody: string | null;
}
export interface DocumentTally {
  /** Requests that created this document (a replayed idempotent request does not reach the domain). */
  creations: number;
  /** Create attempts rejected as duplicates (same type + number, another key). */
  duplicateAttempts: number;
}
export interface DomainState {
  version: 1;
  /** Next value of the id counter; ids are deterministic from the seed. */
  nextId: number;
  seed: number;
  /** Per-account "customer" data: which buyer record the demo buyer account is. */
  supplierBuyers: Record<string, SupplierBuyer>;
  invitations: Record<
    string,
    BuyerInvitation & {
      business_name: string;
      contact_email: string;
      customer_number: string | null;
      price_list_id: string | null;
      created_at: string;
    }
  >;
  products: Record<string, Product>;
  priceLists: Record<string, PriceList>;
  prices: Record<string, PriceEntry[]>;
  orders: Record<string, Order>;
  orderTallies: Record<string, OrderTally>;
  documents: Record<string, PurchaseDocument>;
  documentTallies: Record<string, DocumentTally>;
  /** Index of documents by buyer, type and number (the duplicate rule of G7). */
  documentKeys: Record<string, string>;
  branches: Record<string, Branch>;
  purchaseTypes: PurchaseType[];
  expenseCategories: ExpenseCategory[];
  expenseAccounts: ExpenseAccount[];
  accountMappings: AccountMapping[];
  vendors: Record<string, Vendor>;
  expenses: Record<string, Expense>;
  journalLines: Record<string, JournalLine>;
  exportBatches: Record<string, ExportBatch>;
  zReports: Record<string, ZReport>;
  itemSales: Record<string, ItemSale>;
  inventoryCounts: Record<string, InventoryCount>;
  /** Orders carrying an unknown status/field on purpose (drift tests); ids only. */
  driftOrderIds: string[];
  /** How many upcoming list responses should carry one schema-violating item. */
  pendingCorruptions: number;
  /** Ids of items that were served corrupted. */
  corruptedItemIds: string[];
  /** Events raised, counted by type (the platform keeps the events themselves). */
  eventCounts: Record<string, number>;
}

export function emptyState(seed: number, firstId = 1): DomainState {
  return {
    version: 1,
    nextId: firstId,
    seed,
    supplierBuyers: {},
    invitations: {},
    products: {},
    priceLists: {},
    prices: {},
    orders: {},
    orderTallies: {},
    documents: {},
    documentTallies: {},
    documentKeys: {},
    branches: {},
    purchaseTypes: [],
    expenseCategories: [],
    expenseAccounts: [],
    accountMappings: [],
    vendors: {},
    expenses: {},
    journalLines: {},
    exportBatches: {},
    zReports: {},
    itemSales: {},
    inventoryCounts: {},
    driftOrderIds: [],
    pendingCorruptions: 0,
    corruptedItemIds: [],
    eventCounts: {},
  };
}

export function isDomainState(value: unknown): value is DomainState {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { version?: unknown }).version === 1 &&
    typeof (value as { nextId?: unknown }).nextId === 'number'
  );
}
