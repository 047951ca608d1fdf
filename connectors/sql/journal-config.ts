import { z } from 'zod';
import { JOURNAL_ENTRY_FIELDS, type JournalEntryField } from '../../src/connectors/journal.js';

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/, {
  message: 'expected a plain table or column name (letters, digits, underscore; optional schema prefix)',
});

export const journalColumnFields = JOURNAL_ENTRY_FIELDS;
export type JournalColumnField = JournalEntryField;

export const journalTableSchema = z
  .strictObject({
    table: identifier,
    /** Entry field -> column. Fields left out are not written. */
    columns: z.partialRecord(z.enum(journalColumnFields), identifier),
    /** Fixed values written on every row (a company code, a status the accounting system expects). */
    constants: z.record(identifier, z.union([z.string(), z.number(), z.boolean()])).default({}),
    /**
     * Where the batch key is kept so a re-run can tell the batch was written: a companion table (default), or
     * the `batch_key` column of every row.
     */
    batch_key_store: z.enum(['table', 'column']).default('table'),
    batch_key_table: identifier.default('supply_sync_batches'),
    /** Create the journal and companion tables when missing (demo and evaluation setups). */
    create_tables: z.boolean().default(false),
  })
  .superRefine((value, ctx) => {
    if (value.batch_key_store === 'column' && value.columns.batch_key === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['columns', 'batch_key'],
        message: 'batch_key_store "column" needs columns.batch_key',
      });
    }
    if (Object.keys(value.columns).length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['columns'],
        message: 'map at least one entry field to a column',
      });
    }
  });

export type JournalTableConfig = z.output<typeof journalTableSchema>;
