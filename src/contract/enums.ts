/** Every enum of the contract as a const array (part 2, 3, 6, 8), plus open value sets "seen" in the contract. */

export const CURRENCIES = ['ILS'] as const;
export const ORDER_STATUSES = [
  'draft',
  'pending_approval',
  'approved',
  'partially_approved',
  'rejected',
  'cancelled',
  'cancelled_after_approval',
  'waiting_to_send',
] as const;
export const DOCUMENT_TYPES = ['delivery_note', 'invoice', 'credit_note', 'consolidated_invoice'] as const;
/** Source of documents and journal lines. */
export const DOCUMENT_SOURCES = ['purchase', 'expense', 'card', 'migration'] as const;
export const JOURNAL_SOURCES = DOCUMENT_SOURCES;
/** Document buyer_status. */
export const BUYER_STATUSES = [
  'pending',
  'received',
  'received_with_differences',
  'disputed',
  'approved_for_export',
  'exported',
] as const;
export const PAYMENT_STATUSES = ['unpaid', 'partially_paid', 'paid'] as const;
/** Document export_status. */
export const EXPORT_STATUSES = ['not_ready', 'approved_for_export', 'exported'] as const;
export const JOURNAL_LINE_STATUSES = ['not_ready', 'approved_for_export', 'exported'] as const;
export const JOURNAL_SIDES = ['debit', 'credit', 'vat'] as const;
export const DIFFERENCE_FIELDS = ['quantity', 'unit_price', 'missing_line', 'extra_line'] as const;
/** Status of a linked buyer as the supplier sees it. */
export const SUPPLIER_BUYER_STATUSES = ['active', 'inactive'] as const;
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export const INVITATION_STATUSES = ['sent', 'accepted', 'expired'] as const;
export const EXPENSE_DOC_TYPES = [
  'tax_invoice',
  'invoice_receipt',
  'receipt',
  'payment_request',
  'charge_notice',
  'card_txn',
  'credit_note',
  'none',
] as const;
export const VAT_MODES = ['with_vat', 'exempt', 'no_tax_doc'] as const;
export const EXPENSE_STATUSES = ['draft', 'pending_approval', 'approved', 'exported', 'cancelled'] as const;
export const EXPENSE_SOURCES = [
  'manual',
  'recurring',
  'ocr',
  'email',
  'card_import',
  'migration',
  'api',
] as const;
export const VENDOR_TYPES = ['goods', 'service', 'card', 'internal'] as const;
export const FILE_PURPOSES = ['document_attachment', 'expense_attachment', 'product_image'] as const;
export const EXPORT_JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'expired'] as const;
export const EXPORT_RESOURCES = [
  'orders',
  'documents',
  'expenses',
  'journal_lines',
  'suppliers',
  'products',
  'inventory_counts',
  'z_reports',
  'item_sales',
  'card_transactions',
] as const;
export const EXPORT_FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export const ENVIRONMENTS = ['sandbox', 'live'] as const;
export const WEBHOOK_STATUSES = ['active', 'disabled', 'failing'] as const;
/** PATCH /webhooks/{id} accepts only these. */
export const WEBHOOK_SETTABLE_STATUSES = ['active', 'disabled'] as const;
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const HISTORY_ACTOR_TYPES = ['user', 'api_client', 'system'] as const;
export const BATCH_ITEM_STATUSES = ['created', 'updated', 'skipped', 'failed'] as const;
export const FEATURES = [
  'buyer_api',
  'webhooks',
  'events',
  'bulk_export',
  'ip_allowlist',
  'mtls',
  'audit_api',
] as const;
export const SCOPES = [
  'supplier.buyers:read',
  'supplier.buyers:write',
  'supplier.orders:read',
  'supplier.orders:write',
  'supplier.documents:read',
  'supplier.documents:write',
  'supplier.catalog:write',
  'buyer.purchases:read',
  'buyer.expenses:read',
  'buyer.expenses:write',
  'buyer.accounting:read',
  'buyer.accounting:write',
  'buyer.sales:read',
  'buyer.sales:write',
  'exports:manage',
  'events:read',
  'webhooks:manage',
] as const;
/** Values of event `data.object`. */
export const EVENT_DATA_OBJECTS = [
  'order',
  'document',
  'expense',
  'journal_lines',
  'inventory_count',
  'supplier',
  'card_transaction',
  'buyer',
  'price_list',
  'api_client',
  'webhook',
  'ping',
] as const;
export const GRANT_TYPES = ['client_credentials'] as const;
export const TOKEN_TYPES = ['Bearer'] as const;

// Open value sets: the contract lists values "seen" only, so these fields are plain strings in every mode.
export const PLANS_SEEN = ['supplier', 'Basic', 'Pro', 'Enterprise'] as const;
export const ACCOUNT_TYPES_SEEN = ['supplier', 'buyer'] as const;
export const PURCHASE_TYPES_SEEN = ['FC', 'MK', 'EV', 'OC'] as const;
export const VAT_STATUSES_SEEN = ['standard'] as const;
export const PAYMENT_METHODS_SEEN = ['bank_transfer', 'standing_order', 'credit_card'] as const;
export const PL_GROUPS_SEEN = ['general_admin', 'fixed'] as const;
export const PNL_PL_GROUPS_SEEN = ['revenue', 'cost_of_sales', 'operating_expenses'] as const;
export const VAT_TREATMENTS_SEEN = ['full', 'two_thirds'] as const;
