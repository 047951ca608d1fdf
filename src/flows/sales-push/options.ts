/** Options of a `sales-push` job (jobs.<name>.options in the config). */
import * as z from 'zod';

export const SALES_PUSH_FLOW = 'sales-push';
export const SALES_PUSH_SCOPES = ['buyer.sales:write', 'buyer.purchases:read'] as const;

export const salesPushOptionsSchema = z.strictObject({
  branch_mapping: z
    .string()
    .min(1)
    .optional()
    .meta({
      description:
        "Name of a table under `mappings:` from POS branch codes to API branch ids. Without it (or for codes it does not hold) a code is matched against the API's branches by `code`, then by `id`",
      examples: ['pos_branches'],
    }),
});

export type SalesPushOptions = z.output<typeof salesPushOptionsSchema>;
export type SalesPushOptionsInput = z.input<typeof salesPushOptionsSchema>;
