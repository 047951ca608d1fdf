/** Config block of a `csv` accounting connector (without its `type` key). */
import { z } from 'zod';
import { JOURNAL_ENTRY_FIELDS, type JournalEntryField } from '../../src/connectors/journal.js';

export const CSV_ENTRY_FIELDS = JOURNAL_ENTRY_FIELDS;
export type CsvEntryField = JournalEntryField;

const column = z.union([
  z.strictObject({ header: z.string().min(1), field: z.enum(CSV_ENTRY_FIELDS) }),
  z.strictObject({ header: z.string().min(1), value: z.string() }),
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
  /** Folder the files are written to; relative paths resolve against the config file's folder. */
  output_dir: z.string().min(1),
  /** Subfolder where processed files are moved; files there still count as written. */
  done_dir: z.string().min(1).default('done'),
  file_prefix: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, { error: 'use letters, digits, dot, dash or underscore' })
    .default('journal-'),
  columns: z.array(column).min(1).default(DEFAULT_CSV_COLUMNS),
  header: z.boolean().default(true),
  separator: z
    .string()
    .length(1)
    .refine((s) => s !== '"' && s !== '\r' && s !== '\n', {
      error: 'the separator cannot be a quote or line break',
    })
    .default(','),
  /** Tokens DD, MM, YYYY, YY; anything else is copied. */
  date_format: z
    .string()
    .regex(/^(?=.*DD)(?=.*MM)(?=.*YY)[DMY/.\- ]+$/, { error: 'expected a pattern such as DD/MM/YYYY' })
    .default('DD/MM/YYYY'),
  encoding: z.enum(['utf-8', 'windows-1255']).default('utf-8'),
  /** Write a UTF-8 byte order mark (spreadsheet programs then read Hebrew correctly). */
  bom: z.boolean().default(false),
  /** minimal: quote only values that contain the separator, a quote or a line break. */
  quoting: z.enum(['minimal', 'all']).default('minimal'),
  /** For windows-1255: replacements for characters outside the shared Hebrew set. */
  char_map: z.record(z.string().length(1), z.string()).default({}),
});

export type CsvAccountingConfig = z.output<typeof csvAccountingConfigSchema>;
export type CsvColumn = CsvAccountingConfig['columns'][number];
