import * as z from 'zod';
import { mappingTableName } from '../../config/index.js';

/** `jobs.<name>.options` of the buyers flow. */
export const buyersOptionsSchema = z.strictObject({
  match_by: z
    .array(z.enum(['customer_number', 'erp_ref', 'mapping', 'tax_id']))
    .min(1)
    .default(['customer_number', 'erp_ref', 'mapping', 'tax_id'])
    .describe(
      "How a linked buyer is matched to an ERP customer, tried in this order: the buyer's customer_number or erp_ref naming an ERP customer, the mapping table (buyer id -> customer number), or a unique tax id",
    ),
  customer_mapping: mappingTableName.default('buyers').describe('Buyer id -> ERP customer number'),
  include_inactive: z.boolean().default(false).describe('Also map inactive buyers'),
  invite: z
    .strictObject({
      enabled: z.boolean().default(false).describe('Send invitations'),
      customers: z
        .array(z.string().min(1))
        .default([])
        .describe('Only these ERP customer numbers; empty: every unlinked customer with an e-mail address'),
      price_list_mapping: mappingTableName
        .default('price_lists')
        .describe("ERP price list code -> API price list id, for the invitation's price_list_id"),
      max_per_run: z.number().int().min(1).max(1000).default(50).describe('Most invitations sent in one run'),
    })
    .prefault({})
    .describe('Invite ERP customers that are not linked yet (POST /supplier/buyer-invitations)'),
});

export type BuyersOptions = z.output<typeof buyersOptionsSchema>;

export const BUYERS_FLOW = 'buyers';
export const BUYERS_SCOPES = ['supplier.buyers:read', 'supplier.buyers:write'] as const;
export const BUYERS_TRIGGER_EVENTS = ['buyer.linked'] as const;
