import { z } from 'zod';

const tableName = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'a mapping table name: lowercase letters, digits and underscores');

/**
 * `jobs.<name>.options` of the orders flow. Mapping tables are named here and live under the config's
 * `mappings:` section (API value -> ERP value).
 */
export const ordersOptionsSchema = z.strictObject({
  /** Page size for GET /supplier/orders (1..200). */
  page_size: z.number().int().min(1).max(200).default(100),
  /** Look-back window re-read on every pass, covering rows committed late with earlier timestamps. */
  overlap_ms: z.number().int().min(0).max(86_400_000).default(120_000),
  /** Orders updated before this timestamp are never written (for a first run beside an ERP that has them). */
  start_from: z.iso.datetime({ offset: true }).nullable().default(null),
  /** Orders that already carry an external_ref from another system are left alone unless the ERP has them. */
  skip_acknowledged_elsewhere: z.boolean().default(true),
  /** What a change to an order already in the ERP does: apply it, ignore it, or file it as a dead letter. */
  on_update: z.enum(['apply', 'ignore', 'dead_letter']).default('apply'),
  /** What a cancellation (cancelled or cancelled_after_approval) does to an order already in the ERP. */
  on_cancel: z.enum(['cancel', 'ignore']).default('cancel'),
  /** Send the ERP order number back as external_ref (POST /supplier/orders/{id}/acknowledge). */
  acknowledge: z.boolean().default(true),
  /** The time zone that turns sent_at into the ERP's order date. */
  time_zone: z.string().min(1).default('Asia/Jerusalem'),
  /** Buyer id -> ERP customer number, used when the buyer has neither customer_number nor erp_ref. */
  customer_mapping: tableName.default('buyers'),
  /** Branch id -> ERP ship-to code. When the table is not configured at all, the branch id is the ship-to. */
  ship_to_mapping: tableName.default('branches'),
  /** A branch without a ship-to entry: dead-letter the order, pass the branch id, or leave ship-to empty. */
  unmapped_branch: z.enum(['dead_letter', 'branch_id', 'empty']).default('dead_letter'),
  /** API SKU -> ERP item code, only where they differ. */
  item_mapping: tableName.default('skus'),
  /** A SKU without an entry: use the SKU as the item code, or dead-letter the order. */
  unmapped_item: z.enum(['identity', 'dead_letter']).default('identity'),
  /** API purchase type -> ERP purchase type. */
  purchase_type_mapping: tableName.default('purchase_types'),
  unmapped_purchase_type: z.enum(['identity', 'dead_letter']).default('identity'),
});

export type OrdersOptions = z.output<typeof ordersOptionsSchema>;
export type OrdersOptionsInput = z.input<typeof ordersOptionsSchema>;

export const ORDERS_FLOW = 'orders';
export const ORDERS_SCOPES = [
  'supplier.orders:read',
  'supplier.orders:write',
  'supplier.buyers:read',
] as const;
export const ORDERS_TRIGGER_EVENTS = ['order.created', 'order.updated', 'order.cancelled'] as const;
