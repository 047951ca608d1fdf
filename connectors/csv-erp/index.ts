import path from 'node:path';
import type { Connector } from '../../src/connector-contract/connector.js';
import { checkFolder } from '../../src/kit/folder.js';
import { defineConnector } from '../../src/plugin/index.js';
import { csvErpConfigSchema } from './config.js';
import { CsvInbound } from './inbound.js';
import { CsvOrderSink } from './orders.js';

export { csvErpConfigSchema, type CsvErpConfig } from './config.js';
export { CsvInbound } from './inbound.js';
export { CsvOrderSink } from './orders.js';

export const csvErpConnectorDefinition = defineConnector({
  type: 'csv-erp',
  description: 'An ERP that exchanges CSV files through an export folder and an import folder',
  configSchema: csvErpConfigSchema,
  capabilities: ['catalogSource', 'customerDirectory', 'documentSource', 'confirmationSource', 'orderSink'],
  create(config, context) {
    const inDir = path.resolve(context.baseDir, config.in_dir);
    const outDir = path.resolve(context.baseDir, config.out_dir);
    const inbound = new CsvInbound(config, inDir, context.name);
    const connector: Connector = {
      type: 'csv-erp',
      capabilities: {
        catalogSource: inbound,
        customerDirectory: inbound,
        documentSource: inbound,
        confirmationSource: inbound,
        orderSink: new CsvOrderSink(config, outDir),
      },
      check: async () => [
        await checkFolder('ERP export folder', inDir, { mode: 'read-write', create: true }),
        await checkFolder('ERP import folder', outDir, { mode: 'write', create: true }),
      ],
      close: () => Promise.resolve(),
    };
    return Promise.resolve(connector);
  },
});
