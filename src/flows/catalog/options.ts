/** Options of a `catalog` job (jobs.<name>.options in the config). */
import * as z from 'zod';
import { mappingTableName } from '../../config/index.js';

export const CATALOG_FLOW = 'catalog';
export const CATALOG_SCOPES = ['supplier.catalog:write', 'supplier.buyers:read'] as const;
export const CATALOG_TRIGGER_EVENTS = [] as const;

export const catalogOptionsSchema = z.strictObject({
  max_delete_share: z
    .number()
    .min(0)
    .max(1)
    .default(0.2)
    .describe(
      'The largest share of the synced catalog one run may delete (0..1). Beyond it the run fails and deletes nothing: a broken ERP query must not wipe the catalog',
    ),
  allow_empty_snapshot: z
    .boolean()
    .default(false)
    .describe(
      'Whether an ERP snapshot with no products at all may delete every synced product (with max_delete_share 1)',
    ),
  price_lists: z
    .record(z.string().min(1), z.string().min(1))
    .default({})
    .describe('ERP price list code -> API price list id (e.g. PL-STD: pl_standard)'),
  price_list_mapping: mappingTableName
    .default('price_lists')
    .describe('A mapping table (API price list id -> ERP code), read in addition to `price_lists`'),
  availability: z
    .boolean()
    .default(true)
    .describe('Push availability (in stock / out of stock until a date)'),
  prices: z.boolean().default(true).describe('Push prices'),
  assign_price_lists: z
    .boolean()
    .default(true)
    .describe(
      "Assign price lists to buyers from the ERP's customer records (needs the connector's customer directory)",
    ),
  customer_mapping: mappingTableName
    .default('buyers')
    .describe(
      'API buyer id -> ERP customer number, for buyers whose customer_number / erp_ref do not match the ERP',
    ),
});

export type CatalogOptions = z.output<typeof catalogOptionsSchema>;
export type CatalogOptionsInput = z.input<typeof catalogOptionsSchema>;
