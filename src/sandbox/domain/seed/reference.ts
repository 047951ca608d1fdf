/** The demo buyer's books: purchase types, expense categories, accounts, mappings, vendors. */
import { DEMO_SUPPLIER_ID, DEMO_SUPPLIER_NAME, DEMO_SUPPLIER_TAX_ID } from '../../../demo-data/index.js';
import type { AccountMapping, ExpenseAccount, ExpenseCategory, PurchaseType, Vendor } from '../types.js';

/** Account the vat side of journal lines posts to (input VAT). */
export const INPUT_VAT_ACCOUNT = '1510';
/** Debit account for purchase lines whose category has no mapping. */
export const FALLBACK_PURCHASE_ACCOUNT = '5100';

export const PURCHASE_TYPES: readonly PurchaseType[] = [
  { code: 'FC', name: 'Food cost', is_default: true },
  { code: 'MK', name: 'Market and kitchen supplies', is_default: false },
  { code: 'EV', name: 'Events and catering', is_default: false },
  { code: 'OC', name: 'Operating costs', is_default: false },
];

const category = (
  id: string,
  parentId: string | null,
  name: string,
  plGroup: string,
  vat = 'full',
  fixed = false,
): ExpenseCategory => ({
  id,
  parent_id: parentId,
  name,
  pl_group: plGroup,
  default_vat_treatment: vat,
  is_recurring_fixed: fixed,
  is_active: true,
});

export const EXPENSE_CATEGORIES: readonly ExpenseCategory[] = [
  category('cat_food', null, 'Food and beverage purchases', 'cost_of_sales'),
  category('cat_produce', 'cat_food', 'Produce', 'cost_of_sales'),
  category('cat_meat', 'cat_food', 'Meat, poultry and fish', 'cost_of_sales'),
  category('cat_dairy', 'cat_food', 'Dairy and eggs', 'cost_of_sales'),
  category('cat_dry', 'cat_food', 'Dry and frozen goods', 'cost_of_sales'),
  category('cat_beverages', 'cat_food', 'Beverages', 'cost_of_sales'),
  category('cat_ops', null, 'Operations', 'operating_expenses'),
  category('cat_cleaning', 'cat_ops', 'Cleaning supplies', 'operating_expenses'),
  category('cat_packaging', 'cat_ops', 'Packaging and disposables', 'operating_expenses'),
  category('cat_maintenance', 'cat_ops', 'Repairs and maintenance', 'operating_expenses'),
  category('cat_utilities', 'cat_ops', 'Electricity and water', 'operating_expenses'),
  category('cat_admin', null, 'General and administrative', 'general_admin'),
  category('cat_vehicles', 'cat_admin', 'Vehicles', 'general_admin', 'two_thirds'),
  category('cat_software', 'cat_admin', 'Software subscriptions', 'general_admin'),
  category('cat_card_fees', 'cat_admin', 'Card clearing fees', 'general_admin'),
  category('cat_misc', 'cat_admin', 'Miscellaneous (unmapped)', 'general_admin'),
  category('cat_fixed', null, 'Rent and fixed costs', 'fixed', 'full', true),
  category('cat_rent', 'cat_fixed', 'Rent', 'fixed', 'full', true),
  category('cat_insurance', 'cat_fixed', 'Insurance', 'fixed', 'full', true),
];

export const EXPENSE_ACCOUNTS: readonly ExpenseAccount[] = [
  { code: '5100', name: 'Food purchases', active: true },
  { code: '5110', name: 'Produce purchases', active: true },
  { code: '5120', name: 'Meat and fish purchases', active: true },
  { code: '5130', name: 'Dairy purchases', active: true },
  { code: '5140', name: 'Dry goods purchases', active: true },
  { code: '5150', name: 'Beverage purchases', active: true },
  { code: '5190', name: 'Event purchases', active: true },
  { code: '6110', name: 'Cleaning supplies', active: true },
  { code: '6120', name: 'Packaging', active: true },
  { code: '6130', name: 'Repairs and maintenance', active: true },
  { code: '6140', name: 'Electricity and water', active: true },
  { code: '7110', name: 'Vehicle expenses', active: true },
  { code: '7120', name: 'Software', active: true },
  { code: '7130', name: 'Card clearing fees', active: true },
  { code: '7510', name: 'Rent', active: true },
  { code: '7520', name: 'Insurance', active: true },
  { code: '7990', name: 'Old general expenses', active: false },
];

/** null purchase_type rows are the fallback; cat_misc has no mapping on purpose (it blocks approval). */
export const ACCOUNT_MAPPINGS: readonly AccountMapping[] = [
  { category_id: 'cat_produce', purchase_type: null, expense_account: '5110' },
  { category_id: 'cat_meat', purchase_type: null, expense_account: '5120' },
  { category_id: 'cat_dairy', purchase_type: null, expense_account: '5130' },
  { category_id: 'cat_dry', purchase_type: null, expense_account: '5140' },
  { category_id: 'cat_beverages', purchase_type: null, expense_account: '5150' },
  { category_id: 'cat_produce', purchase_type: 'EV', expense_account: '5190' },
  { category_id: 'cat_meat', purchase_type: 'EV', expense_account: '5190' },
  { category_id: 'cat_beverages', purchase_type: 'EV', expense_account: '5190' },
  { category_id: 'cat_cleaning', purchase_type: null, expense_account: '6110' },
  { category_id: 'cat_packaging', purchase_type: null, expense_account: '6120' },
  { category_id: 'cat_maintenance', purchase_type: null, expense_account: '6130' },
  { category_id: 'cat_utilities', purchase_type: null, expense_account: '6140' },
  { category_id: 'cat_vehicles', purchase_type: null, expense_account: '7110' },
  { category_id: 'cat_software', purchase_type: null, expense_account: '7120' },
  { category_id: 'cat_card_fees', purchase_type: null, expense_account: '7130' },
  { category_id: 'cat_rent', purchase_type: null, expense_account: '7510' },
  { category_id: 'cat_insurance', purchase_type: null, expense_account: '7520' },
];

type VendorSeed = Omit<Vendor, 'created_at' | 'updated_at'>;
const vendor = (
  v: Partial<VendorSeed> & Pick<VendorSeed, 'id' | 'name' | 'vendor_type' | 'credit_account'>,
): VendorSeed => ({
  tax_id: null,
  counts_in_food_cost: v.vendor_type === 'goods',
  vat_status: 'standard',
  payment_terms: 'net_30',
  payment_method: 'bank_transfer',
  default_category_id: null,
  default_purchase_type: null,
  merged_into_vendor_id: null,
  active: true,
  ...v,
});

export const VENDOR_SEEDS: readonly VendorSeed[] = [
  vendor({
    id: DEMO_SUPPLIER_ID,
    name: DEMO_SUPPLIER_NAME,
    tax_id: DEMO_SUPPLIER_TAX_ID,
    vendor_type: 'goods',
    credit_account: '40001',
    default_category_id: 'cat_produce',
    default_purchase_type: 'FC',
    payment_terms: 'net_60',
  }),
  vendor({
    id: 'ven_dairy',
    name: 'Emek Dairies',
    tax_id: '513344557',
    vendor_type: 'goods',
    credit_account: '40002',
    default_category_id: 'cat_dairy',
    default_purchase_type: 'FC',
  }),
  vendor({
    id: 'ven_bakery',
    name: 'Lechem Bakery',
    tax_id: '512298760',
    vendor_type: 'goods',
    credit_account: '40003',
    default_category_id: 'cat_dry',
    default_purchase_type: 'FC',
    payment_method: 'standing_order',
  }),
  vendor({
    id: 'ven_electric',
    name: 'Israel Electric',
    tax_id: '520000472',
    vendor_type: 'service',
    credit_account: '40101',
    default_category_id: 'cat_utilities',
    payment_method: 'standing_order',
  }),
  vendor({
    id: 'ven_cleaning',
    name: 'Brik Cleaning Services',
    tax_id: '514777001',
    vendor_type: 'service',
    credit_account: '40102',
    default_category_id: 'cat_cleaning',
    default_purchase_type: 'OC',
  }),
  vendor({
    id: 'ven_card',
    name: 'Company credit card',
    vendor_type: 'card',
    credit_account: '40201',
    payment_terms: null,
    payment_method: 'credit_card',
  }),
  vendor({
    id: 'ven_kitchen',
    name: 'Central Kitchen (internal)',
    vendor_type: 'internal',
    credit_account: '40301',
    default_category_id: 'cat_food',
    payment_terms: null,
    payment_method: null,
  }),
  vendor({
    id: 'ven_old',
    name: 'Old Produce Co',
    tax_id: '511000123',
    vendor_type: 'goods',
    credit_account: '40004',
    active: false,
    merged_into_vendor_id: DEMO_SUPPLIER_ID,
  }),
];
