import * as z from 'zod';
import { mappingTableName } from '../../config/index.js';

/**
 * `jobs.<name>.options` of the orders flow. Mapping tables are named here and live under the config's
 * `mappings:` section (API value -> ERP value).
 */
export const ordersOptionsSchema = z.strictObject({
  page_size: z
    .number()
    .int()
    .min(1)
    .max(200)
    .default(100)
    .describe('Page size for GET /supplier/orders (1..200)'),
  overlap_ms: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(120_000)
    .describe('Look-back window re-read on every pass, covering rows committed late with earlier timestamps'),
  start_from: z.iso
    .datetime({ offset: true })
    .nullable()
    .default(null)
    .describe(
      'Orders updated before this timestamp are never written (for a first run beside an ERP that has them)',
    ),
  skip_acknowledged_elsewhere: z
    .boolean()
    .default(true)
    .describe(
      'Orders that already carry an external_ref from another system are left alone unless the ERP has them',
    ),
  on_update: z
    .enum(['apply', 'ignore', 'dead_letter'])
    .default('apply')
    .describe(
      'What a change to an order already in the ERP does: apply it, ignore it, or file it as a dead letter',
    ),
  on_cancel: z
    .enum(['cancel', 'ignore'])
    .default('cancel')
    .describe(
      'What a cancellation (cancelled or cancelled_after_approval) does to an order already in the ERP',
    ),
  acknowledge: z
    .boolean()
    .default(true)
    .describe('Send the ERP order number back as external_ref (POST /supplier/orders/{id}/acknowledge)'),
  time_zone: z
    .string()
    .min(1)
    .default('Asia/Jerusalem')
    .describe("The time zone that turns sent_at into the ERP's order date"),
  customer_mapping: mappingTableName
    .default('buyers')
    .describe('Buyer id -> ERP customer number, used when the buyer has neither customer_number nor erp_ref'),
  ship_to_mapping: mappingTableName
    .default('branches')
    .describe(
      'Branch id -> ERP ship-to code. When the table is not configured at all, the branch id is the ship-to',
    ),
  unmapped_branch: z
    .enum(['dead_letter', 'branch_id', 'empty'])
    .default('dead_letter')
    .describe(
      'A branch without a ship-to entry: dead-letter the order, pass the branch id, or leave ship-to empty',
    ),
  item_mapping: mappingTableName.default('skus').describe('API SKU -> ERP item code, only where they differ'),
  unmapped_item: z
    .enum(['identity', 'dead_letter'])
    .default('identity')
    .describe('A SKU without an entry: use the SKU as the item code, or dead-letter the order'),
  purchase_type_mapping: mappingTableName
    .default('purchase_types')
    .describe('API purchase type -> ERP purchase type'),
  unmapped_purchase_type: z
    .enum(['identity', 'dead_letter'])
    .default('identity')
    .describe('A purchase type without an entry: use it as the ERP purchase type, or dead-letter the order'),
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
