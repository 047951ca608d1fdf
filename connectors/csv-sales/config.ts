import { z } from 'zod';
import { duration } from '../../src/config/index.js';

export const csvSalesConfigSchema = z.strictObject({
  /** Drop folder the POS exports Z-report and item-sale CSV files into. */
  in_dir: z.string().min(1),
  /** Where processed files go; relative paths resolve against in_dir. */
  done_dir: z.string().min(1).default('done'),
  /** Where files with a failed item, or that could not be read, go (with a .error.txt beside unreadable ones). */
  failed_dir: z.string().min(1).default('failed'),
  separator: z.enum([',', ';', '\t', '|']).default(','),
  encoding: z.enum(['utf-8', 'windows-1255']).default('utf-8'),
  /** Files modified more recently than this are left for the next run (the POS may still be writing them). */
  min_age: duration().default(2000),
});

export type CsvSalesConfig = z.output<typeof csvSalesConfigSchema>;
