/** Options of an `expenses` job (jobs.<name>.options in the config). */
import * as z from 'zod';
import { mappingTableName } from '../../config/index.js';

const tableName = (description: string, fallback: string) =>
  mappingTableName.default(fallback).meta({ description, examples: [fallback] });

export const EXPENSES_FLOW = 'expenses';
/** Read is needed only to find an expense whose creation outlived the API's 24-hour idempotency window. */
export const EXPENSES_SCOPES = ['buyer.expenses:write', 'buyer.expenses:read'] as const;

export const expensesOptionsSchema = z.strictObject({
  mark_sent: z
    .boolean()
    .default(true)
    .describe('Write the API expense id back to the source once the expense is created'),
  vendor_mapping: tableName(
    'Table under `mappings:` from API vendor id to the source vendor code; without the table, codes are sent as they are',
    'vendors',
  ),
  category_mapping: tableName(
    'Table under `mappings:` from API expense category id to the source category code',
    'expense_categories',
  ),
  branch_mapping: tableName(
    'Table under `mappings:` from API branch id to the source branch code',
    'branches',
  ),
  purchase_type_mapping: tableName(
    'Table under `mappings:` from API purchase type code to the source purchase type',
    'purchase_types',
  ),
  file_reuse_window_ms: z
    .number()
    .int()
    .min(0)
    .max(23 * 3_600_000)
    .default(20 * 3_600_000)
    .describe(
      'How long an uploaded, not yet referenced file id is reused after a crash. The API deletes unreferenced files after 24 hours, so this stays well below that',
    ),
});

export type ExpensesOptions = z.output<typeof expensesOptionsSchema>;
export type ExpensesOptionsInput = z.input<typeof expensesOptionsSchema>;
