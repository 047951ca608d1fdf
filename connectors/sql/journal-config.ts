import * as z from 'zod';
import { JOURNAL_ENTRY_FIELDS, type JournalEntryField } from '../../src/connector-contract/journal.js';

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/, {
  message: 'expected a plain table or column name (letters, digits, underscore; optional schema prefix)',
});

export const journalColumnFields = JOURNAL_ENTRY_FIELDS;
export type JournalColumnField = JournalEntryField;

export const journalTableSchema = z
  .strictObject({
    table: identifier.meta({
      description: 'Table the journal lines are inserted into, optionally schema-qualified',
      examples: ['gl.import_lines'],
    }),
    columns: z.partialRecord(z.enum(journalColumnFields), identifier).meta({
      description: 'Entry field -> column; fields left out are not written',
      examples: [{ line_number: 'line_no', account: 'account', amount: 'amount', date: 'doc_date' }],
    }),
    constants: z
      .record(identifier, z.union([z.string(), z.number(), z.boolean()]))
      .meta({
        description:
          'Fixed values written on every row (a company code, a status the accounting system expects)',
        examples: [{ company_code: '01' }],
      })
      .default({}),
    batch_key_store: z
      .enum(['table', 'column'])
      .meta({
        description:
          'Where the batch key is kept so a re-run can tell the batch was written: a companion table, or the ' +
          'batch_key column of every row',
      })
      .default('table'),
    batch_key_table: identifier
      .meta({ description: 'The companion table of written batch keys (batch_key_store: table)' })
      .default('supply_sync_batches'),
    create_tables: z
      .boolean()
      .meta({
        description:
          'Create the journal and companion tables when missing (demo and evaluation setups); never a schema',
      })
      .default(false),
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
