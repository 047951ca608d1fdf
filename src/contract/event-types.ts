/** The event catalog of part 6.2. */
export const SUPPLIER_EVENT_TYPES = [
  'order.created',
  'order.updated',
  'order.cancelled',
  'document.received',
  'document.disputed',
  'document.approved_for_export',
  'buyer.linked',
  'price_list.assigned',
] as const;

export const BUYER_EVENT_TYPES = [
  'order.status_changed',
  'document.created',
  'document.updated',
  'expense.created',
  'expense.approved',
  'journal_lines.approved_for_export',
  'inventory_count.completed',
  'supplier.updated',
  'card_transaction.imported',
] as const;

export const ALL_ACCOUNT_EVENT_TYPES = ['api_client.suspended', 'webhook.disabled', 'ping'] as const;

export const EVENT_TYPES = [
  ...SUPPLIER_EVENT_TYPES,
  ...BUYER_EVENT_TYPES,
  ...ALL_ACCOUNT_EVENT_TYPES,
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
