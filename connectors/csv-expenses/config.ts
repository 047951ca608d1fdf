import * as z from 'zod';
import { duration } from '../../src/config/index.js';
import { DATE_FORMATS, type CellFormats } from './formats.js';

/** A column name; matched without regard to case, as the header's names are. */
const column = (description: string, fallback: string) =>
  z
    .string()
    .trim()
    .min(1)
    .meta({ description, examples: [fallback] })
    .default(fallback);

export const csvExpensesConfigSchema = z
  .strictObject({
    in_dir: z
      .string()
      .min(1)
      .meta({
        description:
          'Drop folder of expense CSV files (one row per expense line) and the receipt files they name',
        examples: ['/srv/back-office/expenses'],
      }),
    done_dir: z
      .string()
      .min(1)
      .meta({
        description:
          'Where a file goes once every expense in it is sent; relative paths resolve against in_dir',
      })
      .default('done'),
    failed_dir: z
      .string()
      .min(1)
      .meta({ description: 'Where files that cannot be read go, with a .error.txt beside them' })
      .default('failed'),
    reference_column: column(
      'The column whose value identifies an expense: rows with the same value are the lines of one expense',
      'reference',
    ),
    attachment_column: column(
      'The column naming the expense receipt, a file in the drop folder (empty: no attachment)',
      'attachment',
    ),
    separator: z
      .enum([',', ';', '\t', '|'])
      .meta({ description: 'Field separator of the CSV files' })
      .default(','),
    encoding: z
      .enum(['utf-8', 'windows-1255'])
      .meta({ description: 'Character encoding of the CSV files' })
      .default('utf-8'),
    min_age: duration()
      .meta({
        description:
          'Files modified more recently than this are left for the next run (the exporting program may still be writing them)',
        examples: ['5s'],
      })
      .default(2000),
    date_format: z
      .enum(DATE_FORMATS)
      .meta({ description: 'How doc_date and due_date are written in the files', examples: ['DD/MM/YYYY'] })
      .default('YYYY-MM-DD'),
    decimal: z.enum(['.', ',']).meta({ description: 'The decimal mark of the amounts' }).default('.'),
    thousands: z
      .enum(['', ',', '.', ' ', "'"])
      .meta({
        description: 'The thousands separator amounts may carry ("1,250.00"); empty: none',
        examples: [','],
      })
      .default(''),
    currency_sign: z
      .string()
      .trim()
      .min(1)
      .max(3)
      .meta({ description: 'A currency sign amounts may carry before or after the number', examples: ['₪'] })
      .optional(),
  })
  .refine((config) => config.thousands !== config.decimal, {
    message: 'thousands and decimal must differ (for example thousands: "," with decimal: ".")',
    path: ['thousands'],
  });

/** The cell formats the config names, as the parser takes them. */
export function cellFormatsOf(config: CsvExpensesConfig): CellFormats {
  return {
    dateFormat: config.date_format,
    decimal: config.decimal,
    thousands: config.thousands,
    currencySign: config.currency_sign ?? null,
  };
}

export type CsvExpensesConfig = z.output<typeof csvExpensesConfigSchema>;
