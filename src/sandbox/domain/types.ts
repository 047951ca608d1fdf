/** Resource shapes as the API returns them (part 2 of the contract), stored as-is in the sandbox state. */
export type Money = string;
export type Quantity = string;
export type Timestamp = string;
export type DateOnly = string;

export interface PartyRef {
  id: string;
  name: string;
}
export interface BranchRef extends PartyRef {
  tax_id: string | null;
}
export interface Totals {
  before_vat: Money;
  vat: Money;
  with_vat: Money;
  discount?: Money;
}
export interface ExpenseTotals extends Totals {
  deductible_vat?: Money;
}
export interface FileRef {
  id: string;
  name: string;
}
export interface HistoryEntry {
  at: Timestamp;
  action: string;
  actor: { type: 'user' | 'api_client' | 'system'; id: string; name: string };
  changes: Record<string, { from: unknown; to: unknown }>;
}

export interface BuyerBranch {
  id: string;
  name: string;
  tax_id: string | null;
  address: string;
  delivery_days: string[];
}
export interface SupplierBuyer {
  id: string;
  name: string;
  tax_id: string | null;
  status: 'active' | 'inactive';
  customer_number: string | null;
  erp_ref: string | null;
  branches: BuyerBranch[];
  min_order: Money | null;
  payment_terms: string | null;
  price_list_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export interface BuyerInvitation {
  id: string;
  status: 'sent' | 'accepted' | 'expired';
  onboarding_url: string;
  expires_at: Timestamp;
}
export interface PriceList {
  id: string;
  name: string;
  currency: string;
  buyer_ids: string[];
  updated_at: Timestamp;
}
export interface PriceEntry {
  sku: string;
  price: Money;
  min_quantity?: Quantity;
  valid_from?: DateOnly;
}
export interface Product {
  sku: string;
  name: string;
  unit: string;
  package_quantity?: Quantity;
  category?: string | null;
  barcode?: string | null;
  vat_exempt: boolean;
  available: boolean;
  image_file_id?: string | null;
  external_ref?: string | null;
  available_until: DateOnly | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface OrderLine {
  id: string;
  sku: string;
  name: string;
  quantity: Quantity;
  unit_price: Money;
  total: Money;
  unit: string;
  package_quantity?: Quantity;
  discount_pct: string | null;
  vat_exempt: boolean;
  quantity_confirmed: Quantity | null;
  substitute_sku: string | null;
  notes: string | null;
  product_group: string | null;
  expense_account: string | null;
}
export interface Order {
  id: string;
  number: string;
  status: string;
  buyer: { id: string; name: string; customer_number: string | null };
  supplier: PartyRef;
  branch: BranchRef;
  purchase_type: string | null;
  sent_at?: Timestamp;
  delivery_date: DateOnly;
  delivery_window?: { from: string; to: string };
  currency: string;
  totals: Totals;
  lines: OrderLine[];
  notes: string | null;
  external_ref: string | null;
  acknowledged_at: Timestamp | null;
  related_document_ids: string[];
  files: FileRef[];
  history: HistoryEntry[];
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface DocumentLine {
  id: string;
  sku: string;
  name: string;
  quantity: Quantity;
  unit_price: Money;
  total: Money;
  unit?: string;
  discount_pct: string | null;
  vat_exempt: boolean;
  order_id: string | null;
  order_line_id: string | null;
  quantity_received: Quantity | null;
  purchase_type: string | null;
  expense_account: string | null;
}
export interface Difference {
  line_id: string;
  sku: string;
  field: 'quantity' | 'unit_price' | 'missing_line' | 'extra_line';
  issued: string;
  received: string;
  note: string;
}
export interface PurchaseDocument {
  id: string;
  type: string;
  number: string;
  date: DateOnly;
  accounting_period: string;
  due_date: DateOnly | null;
  supplier: PartyRef;
  buyer: PartyRef;
  branch?: BranchRef;
  purchase_type: string | null;
  source: string;
  order_ids: string[];
  currency: string;
  totals: Totals;
  allocation_number: string | null;
  lines: DocumentLine[];
  buyer_status: string;
  differences: Difference[];
  payment_status: string;
  paid_at: Timestamp | null;
  export_status: string;
  exported_at: Timestamp | null;
  files: FileRef[];
  external_ref: string | null;
  history: HistoryEntry[];
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface Branch {
  id: string;
  name: string;
  tax_id: string | null;
  code: string;
  region: string;
  address: string;
  active: boolean;
  updated_at: Timestamp;
}
export interface PurchaseType {
  code: string;
  name: string;
  is_default: boolean;
}
export interface ExpenseCategory {
  id: string;
  parent_id: string | null;
  name: string;
  pl_group: string;
  default_vat_treatment: string;
  is_recurring_fixed: boolean;
  is_active: boolean;
}
export interface ExpenseAccount {
  code: string;
  name: string;
  active: boolean;
}
export interface AccountMapping {
  category_id: string;
  purchase_type: string | null;
  expense_account: string;
}
export interface Vendor {
  id: string;
  name: string;
  tax_id: string | null;
  vendor_type: string;
  counts_in_food_cost: boolean;
  vat_status: string;
  payment_terms: string | null;
  payment_method: string | null;
  default_category_id: string | null;
  default_purchase_type: string | null;
  credit_account: string;
  merged_into_vendor_id: string | null;
  active: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export interface CatalogProduct {
  id: string;
  sku: string;
  name: string;
  supplier_id: string;
  product_group: string;
  category_id: string | null;
  unit: string;
  package_quantity?: Quantity;
  current_price: Money;
  vat_exempt: boolean;
  inventory_item: boolean;
  active: boolean;
  updated_at: Timestamp;
}

export interface ExpenseLine {
  id: string;
  category_id: string;
  amount_before_vat: Money;
  vat_amount: Money;
  purchase_type: string | null;
  branch_id: string | null;
  description: string | null;
  expense_account: string | null;
}
export interface Expense {
  id: string;
  vendor_id: string;
  vendor: PartyRef;
  merchant_name: string | null;
  doc_type: string;
  doc_number: string | null;
  allocation_number: string | null;
  doc_date: DateOnly;
  due_date: DateOnly | null;
  accounting_period: string;
  branch_id: string;
  purchase_type: string | null;
  vat_mode: string;
  currency: string;
  totals: ExpenseTotals;
  payment_method: string | null;
  payment_status: string;
  paid_at: Timestamp | null;
  status: string;
  source: string;
  lines: ExpenseLine[];
  files: FileRef[];
  notes: string | null;
  approved_by: string | null;
  approved_at: Timestamp | null;
  exported_at: Timestamp | null;
  external_ref: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface JournalLine {
  id: string;
  document_id: string;
  document_type: string;
  document_number: string;
  source: string;
  side: 'debit' | 'credit' | 'vat';
  account: string;
  counter_account: string | null;
  amount: Money;
  currency: string;
  description: string;
  vendor_id: string;
  vendor_tax_id: string | null;
  branch_id: string;
  branch_tax_id: string | null;
  purchase_type: string | null;
  category_id: string | null;
  reference: string;
  allocation_number: string | null;
  doc_date: DateOnly;
  accounting_period: string;
  movement_type_code: string | null;
  batch_number: string | null;
  status: 'not_ready' | 'approved_for_export' | 'exported';
  export_batch_id: string | null;
  exported_at: Timestamp | null;
  updated_at: Timestamp;
}
export interface ExportBatch {
  id: string;
  line_count: number;
  target: string | null;
  external_ref: string | null;
  exported_at: Timestamp;
  exported_by: { client_id: string; client_name: string };
}

export interface ZReport {
  id: string;
  branch_id: string;
  z_number: string;
  closed_at: Timestamp;
  total_before_vat: Money;
  description?: string | null;
  orders_count?: number;
  dine_in_total?: Money;
  dine_in_count?: number;
  take_away_total?: Money;
  take_away_count?: number;
  tips?: Money;
  cash_total?: Money;
  card_total?: Money;
  cheque_total?: Money;
  discounts_total?: Money;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export interface ItemSale {
  id: string;
  branch_id: string;
  z_number: string;
  value_date: Timestamp;
  item_code: string;
  item_name: string;
  quantity: Quantity;
  unit_price: Money;
  total: Money;
  line_number?: number;
  main_category?: string | null;
  sub_category?: string | null;
  updated_at: Timestamp;
}
export interface InventoryCountLine {
  product_id: string;
  sku: string;
  name: string;
  quantity: Quantity;
  unit: string;
  unit_cost: Money;
  value: Money;
}
export interface InventoryCount {
  id: string;
  branch_id: string;
  counted_at: Timestamp;
  status: string;
  total_value: Money;
  lines: InventoryCountLine[];
  updated_at: Timestamp;
}
