import * as z from 'zod';
import { mappingTableName } from '../../config/index.js';

/** `jobs.<name>.options` of the order-confirm flow. */
export const orderConfirmOptionsSchema = z.strictObject({
  max_per_run: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(500)
    .describe('Most confirmations sent in one run; the rest wait for the next run'),
  item_mapping: mappingTableName
    .default('skus')
    .describe(
      "Mapping table API SKU -> ERP item code (the orders flow's item_mapping), read backwards for substitutes",
    ),
  default_reject_reason: z
    .string()
    .min(1)
    .max(500)
    .default('Rejected by the supplier')
    .describe('Reason sent with a rejection the ERP gives none for (1..500 characters)'),
});

export type OrderConfirmOptions = z.output<typeof orderConfirmOptionsSchema>;

export const ORDER_CONFIRM_FLOW = 'order-confirm';
export const ORDER_CONFIRM_SCOPES = ['supplier.orders:read', 'supplier.orders:write'] as const;
