/** Buyer reference data (part 2.7): branches, purchase types, vendors, catalog products, categories, accounts. */
import * as z from 'zod';
import { VENDOR_TYPES } from './enums.js';
import { Id, Money, Quantity, Timestamp } from './formats.js';
import type { SchemaKit } from './kit.js';

/** The buyer's own set-up: branches and purchase types. */
function organisationSchemas(k: SchemaKit) {
  const Branch = k.object({
    id: Id,
    name: z.string(),
    tax_id: z.string().nullable().optional(),
    code: z.string().nullable().optional(),
    region: z.string().nullable().optional(),
    address: z.string().nullable().optional(),
    active: z.boolean().optional(),
    updated_at: Timestamp.optional(),
  });
  const PurchaseType = k.object({ code: z.string(), name: z.string(), is_default: z.boolean().optional() });
  return { Branch, PurchaseType };
}

/** Who the buyer buys from, and what. */
function supplySchemas(k: SchemaKit) {
  /** vat_status, payment_method: open sets (gaps.ts), plain strings in both modes. */
  const Vendor = k.object({
    id: Id,
    name: z.string(),
    tax_id: z.string().nullable().optional(),
    vendor_type: k.enumOf(VENDOR_TYPES),
    counts_in_food_cost: z.boolean().optional(),
    vat_status: z.string().nullable().optional(),
    payment_terms: z.string().nullable().optional(),
    payment_method: z.string().nullable().optional(),
    default_category_id: z.string().nullable().optional(),
    default_purchase_type: z.string().nullable().optional(),
    credit_account: z.string().nullable().optional(),
    merged_into_vendor_id: z.string().nullable().optional(),
    active: z.boolean().optional(),
    created_at: Timestamp.optional(),
    updated_at: Timestamp.optional(),
  });
  const CatalogProduct = k.object({
    id: Id,
    sku: z.string(),
    name: z.string(),
    supplier_id: z.string(),
    product_group: z.string().nullable().optional(),
    category_id: z.string().nullable().optional(),
    unit: z.string().optional(),
    package_quantity: Quantity.optional(),
    current_price: Money.nullable().optional(),
    vat_exempt: z.boolean().optional(),
    inventory_item: z.boolean().optional(),
    active: z.boolean().optional(),
    updated_at: Timestamp.optional(),
  });
  return { Vendor, CatalogProduct };
}

/** Expense categories and the accounts they book to. */
function accountingSchemas(k: SchemaKit) {
  /** pl_group, default_vat_treatment: open sets (gaps.ts). */
  const ExpenseCategory = k.object({
    id: Id,
    parent_id: z.string().nullable().optional(),
    name: z.string(),
    pl_group: z.string().nullable().optional(),
    default_vat_treatment: z.string().nullable().optional(),
    is_recurring_fixed: z.boolean().optional(),
    is_active: z.boolean().optional(),
  });
  const ExpenseAccount = k.object({ code: z.string(), name: z.string(), active: z.boolean().optional() });
  const AccountMapping = k.object({
    category_id: z.string(),
    purchase_type: z.string().nullable(),
    expense_account: z.string(),
  });
  return { ExpenseCategory, ExpenseAccount, AccountMapping };
}

export function defineBuyerReference(k: SchemaKit) {
  return { ...organisationSchemas(k), ...supplySchemas(k), ...accountingSchemas(k) };
}
