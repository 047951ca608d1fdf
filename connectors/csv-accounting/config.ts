/** Config block of a `csv` accounting connector (without its `type` key). */
import * as z from 'zod';
import { JOURNAL_ENTRY_FIELDS, type JournalEntryField } from '../../src/connector-contract/journal.js';

export const CSV_ENTRY_FIELDS = JOURNAL_ENTRY_FIELDS;
export type CsvEntryField = JournalEntryField;

const header = z
  .string()
  .min(1)
  .meta({ description: 'Column header', examples: ['account'] });

const column = z.union([
  z.strictObject({
    header,
    field: z.enum(CSV_ENTRY_FIELDS).meta({ description: 'Journal entry field written in this column' }),
  }),
  z.strictObject({
    header,
    value: z.string().meta({ description: 'Fixed value written on every row', examples: ['01'] }),
  }),
]);

export const DEFAULT_CSV_COLUMNS: z.input<typeof column>[] = [
  { header: 'batch', field: 'batch_key' },
  { header: 'line', field: 'line_number' },
  { header: 'date', field: 'date' },
  { header: 'value_date', field: 'value_date' },
  { header: 'reference', field: 'reference' },
  { header: 'reference2', field: 'reference2' },
  { header: 'movement_type', field: 'movement_type' },
  { header: 'account', field: 'account' },
  { header: 'counter_account', field: 'counter_account' },
  { header: 'debit', field: 'debit' },
  { header: 'credit', field: 'credit' },
  { header: 'branch', field: 'branch_code' },
  { header: 'description', field: 'description' },
];

export const csvAccountingConfigSchema = z.strictObject({
  output_dir: z
    .string()
    .min(1)
    .meta({
      description: "Folder the files are written to; relative paths resolve against the config file's folder",
      examples: ['/srv/books/import'],
    }),
  done_dir: z
    .string()
    .min(1)
    .meta({ description: 'Subfolder where processed files are moved; files there still count as written' })
    .default('done'),
  file_prefix: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, { error: 'use letters, digits, dot, dash or underscore' })
    .meta({ description: 'Files are named <file_prefix><batch key>.csv' })
    .default('journal-'),
  columns: z
    .array(column)
    .min(1)
    .meta({ description: 'The columns in order: each a journal entry field or a fixed value' })
    .default(DEFAULT_CSV_COLUMNS),
  header: z.boolean().meta({ description: 'Write a header row' }).default(true),
  separator: z
    .string()
    .length(1)
    .refine((s) => s !== '"' && s !== '\r' && s !== '\n', {
      error: 'the separator cannot be a quote or line break',
    })
    .meta({ description: 'Field separator, one character' })
    .default(','),
  date_format: z
    .string()
    .regex(/^(?=.*DD)(?=.*MM)(?=.*YY)[DMY/.\- ]+$/, { error: 'expected a pattern such as DD/MM/YYYY' })
    .meta({ description: 'How dates are written: tokens DD, MM, YYYY, YY; anything else is copied' })
    .default('DD/MM/YYYY'),
  encoding: z
    .enum(['utf-8', 'windows-1255'])
    .meta({ description: 'Character encoding of the files' })
    .default('utf-8'),
  bom: z
    .boolean()
    .meta({ description: 'Write a UTF-8 byte order mark (spreadsheet programs then read Hebrew correctly)' })
    .default(false),
  quoting: z
    .enum(['minimal', 'all'])
    .meta({
      description:
        'minimal: quote only values that contain the separator, a quote or a line break; all: every value',
    })
    .default('minimal'),
  char_map: z
    .record(z.string().length(1), z.string())
    .meta({
      description: 'For windows-1255: replacements for characters outside the shared Hebrew set',
      examples: [{ '₪': 'ש"ח' }],
    })
    .default({}),
});

export type CsvAccountingConfig = z.output<typeof csvAccountingConfigSchema>;
export type CsvColumn = CsvAccountingConfig['columns'][number];
