/**
 * Worked example of docs/extending.md: a connector type, `customer-file`, that reads the ERP's customer list from
 * a JSON file and offers it as the `customerDirectory` capability. A real one lives in connectors/<type>/.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import type { CheckResult, Connector, ErpCustomer } from '../../../src/connector-contract/index.js';
import { defineConnector } from '../../../src/plugin/index.js';

export const customerFileConfigSchema = z.strictObject({
  file: z
    .string()
    .min(1)
    .meta({
      description: "JSON file holding the customer list; relative to the config file's folder",
      examples: ['customers.json'],
    }),
});

const customerRow = z.object({
  customer_number: z.string().min(1),
  name: z.string(),
  email: z.string().nullable(),
});

export const customerFileConnectorDefinition = defineConnector({
  type: 'customer-file',
  description: 'ERP customers read from a JSON file',
  configSchema: customerFileConfigSchema,
  capabilities: ['customerDirectory'],
  create(config, context) {
    const file = path.resolve(context.baseDir, config.file);
    const connector: Connector = {
      type: 'customer-file',
      capabilities: {
        customerDirectory: {
          async listCustomers(): Promise<ErpCustomer[]> {
            const rows = z.array(customerRow).parse(JSON.parse(await readFile(file, 'utf8')));
            return rows.map((row) => ({
              customerNumber: row.customer_number,
              name: row.name,
              taxId: null,
              erpRef: null,
              email: row.email,
              priceList: null,
            }));
          },
        },
      },
      async check(): Promise<CheckResult[]> {
        const readable = await readFile(file).then(
          () => true,
          () => false,
        );
        return [
          readable
            ? { name: 'customer file', status: 'ok', detail: file }
            : { name: 'customer file', status: 'fail', detail: `cannot read ${file}`, fix: 'check the path' },
        ];
      },
      close: async () => {},
    };
    return Promise.resolve(connector);
  },
});
