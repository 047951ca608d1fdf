import { z } from 'zod';

export const csvErpConfigSchema = z.strictObject({
  /** Folder the ERP exports into: products.csv, prices.csv, availability.csv, customers.csv, documents/, confirmations/. */
  in_dir: z.string().min(1),
  /** Folder the ERP imports from: orders/ (new orders, updates and cancellations). */
  out_dir: z.string().min(1),
  separator: z.enum([',', ';', '\t', '|']).default(','),
  encoding: z.enum(['utf-8', 'windows-1255']).default('utf-8'),
});

export type CsvErpConfig = z.output<typeof csvErpConfigSchema>;
