/** Reads shared by several modules: references, mappings, prices. */
import type { DomainEnv } from './env.js';
import { notFound } from './errors.js';
import { DEMO_BUYER_ID, DEMO_SUPPLIER_ID, DEMO_SUPPLIER_NAME } from '../../demo-data/index.js';
import { FALLBACK_PURCHASE_ACCOUNT } from './seed/reference.js';
import type { BranchRef, PartyRef, Product, SupplierBuyer, Vendor } from './types.js';

export const supplierParty = (): PartyRef => ({ id: DEMO_SUPPLIER_ID, name: DEMO_SUPPLIER_NAME });

export function supplierBuyer(env: DomainEnv, buyerId: string): SupplierBuyer {
  const buyer = env.state.supplierBuyers[buyerId];
  if (!buyer) throw notFound('Buyer', buyerId);
  return buyer;
}

export const demoBuyer = (env: DomainEnv): SupplierBuyer => supplierBuyer(env, DEMO_BUYER_ID);

export function branchRef(env: DomainEnv, branchId: string): BranchRef | undefined {
  const branch = env.state.branches[branchId];
  return branch ? { id: branch.id, name: branch.name, tax_id: branch.tax_id } : undefined;
}

export function vendor(env: DomainEnv, vendorId: string): Vendor {
  const found = env.state.vendors[vendorId];
  if (!found) throw notFound('Supplier', vendorId);
  return found;
}

/** Mapping for (category, purchase type), falling back to the row with a null purchase type. */
export function resolveExpenseAccount(
  env: DomainEnv,
  categoryId: string | null,
  purchaseType: string | null,
): string | null {
  if (categoryId === null) return null;
  const rows = env.state.accountMappings.filter((row) => row.category_id === categoryId);
  const exact = purchaseType === null ? undefined : rows.find((row) => row.purchase_type === purchaseType);
  return (exact ?? rows.find((row) => row.purchase_type === null))?.expense_account ?? null;
}

/** The buyer's expense category of a supplier product, by its catalog category. */
export function productCategoryId(product: Pick<Product, 'category'> | undefined): string | null {
  return (product?.category && CATEGORY_BY_PRODUCT_CATEGORY[product.category]) ?? null;
}

export const CATEGORY_BY_PRODUCT_CATEGORY: Readonly<Record<string, string>> = {
  Produce: 'cat_produce',
  'Meat and poultry': 'cat_meat',
  Fish: 'cat_meat',
  'Dairy and eggs': 'cat_dairy',
  'Dry goods': 'cat_dry',
  Beverages: 'cat_beverages',
  Frozen: 'cat_dry',
  Cleaning: 'cat_cleaning',
  Packaging: 'cat_packaging',
};

/** Expense account of a purchase line, never null (purchases fall back to the general food account). */
export function purchaseLineAccount(env: DomainEnv, sku: string, purchaseType: string | null): string {
  return (
    resolveExpenseAccount(env, productCategoryId(env.state.products[sku]), purchaseType) ??
    FALLBACK_PURCHASE_ACCOUNT
  );
}

/** Current prices for a buyer by SKU: its assigned price list first, then any other list that prices the SKU. */
export function pricesFor(env: DomainEnv, buyerId: string = DEMO_BUYER_ID): Map<string, string> {
  const assigned = env.state.supplierBuyers[buyerId]?.price_list_id ?? null;
  const others = Object.keys(env.state.prices).filter((id) => id !== assigned);
  const prices = new Map<string, string>();
  for (const listId of assigned ? [assigned, ...others] : others) {
    for (const entry of env.state.prices[listId] ?? [])
      if (!prices.has(entry.sku)) prices.set(entry.sku, entry.price);
  }
  return prices;
}
