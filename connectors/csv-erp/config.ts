import * as z from 'zod';

export const csvErpConfigSchema = z.strictObject({
  in_dir: z
    .string()
    .min(1)
    .meta({
      description:
        'Folder the ERP exports into: products.csv, prices.csv, availability.csv, customers.csv, documents/, confirmations/',
      examples: ['/srv/erp/export'],
    }),
  out_dir: z
    .string()
    .min(1)
    .meta({
      description: 'Folder the ERP imports from: orders/ (new orders, updates and cancellations)',
      examples: ['/srv/erp/import'],
    }),
  separator: z
    .enum([',', ';', '\t', '|'])
    .meta({ description: 'Field separator of the CSV files' })
    .default(','),
  encoding: z
    .enum(['utf-8', 'windows-1255'])
    .meta({ description: 'Character encoding of the CSV files' })
    .default('utf-8'),
});

export type CsvErpConfig = z.output<typeof csvErpConfigSchema>;
