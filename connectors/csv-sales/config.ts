import * as z from 'zod';
import { duration } from '../../src/config/index.js';

export const csvSalesConfigSchema = z.strictObject({
  in_dir: z
    .string()
    .min(1)
    .meta({
      description: 'Drop folder the POS exports Z-report and item-sale CSV files into',
      examples: ['/srv/pos/drop'],
    }),
  done_dir: z
    .string()
    .min(1)
    .meta({ description: 'Where processed files go; relative paths resolve against in_dir' })
    .default('done'),
  failed_dir: z
    .string()
    .min(1)
    .meta({
      description:
        'Where files with a failed item, or that could not be read, go (with a .error.txt beside unreadable ones)',
    })
    .default('failed'),
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
        'Files modified more recently than this are left for the next run (the POS may still be writing them)',
      examples: ['2s'],
    })
    .default(2000),
});

export type CsvSalesConfig = z.output<typeof csvSalesConfigSchema>;
