import type { Connector } from '../../src/connector-contract/connector.js';
import { checkFolder } from '../../src/kit/folder.js';
import { defineConnector } from '../../src/plugin/index.js';
import { csvSalesConfigSchema } from './config.js';
import { CsvSalesSource, salesFolders } from './source.js';

export const csvSalesConnectorDefinition = defineConnector({
  type: 'csv-sales',
  description:
    'POS sales drop folder: Z-report and item-sale CSV files, moved to done/ or failed/ after processing',
  configSchema: csvSalesConfigSchema,
  capabilities: ['salesSource'],
  create(config, context) {
    const folders = salesFolders(config, context.baseDir, {
      connector: context.name,
      configFile: context.configFile,
    });
    const connector: Connector = {
      type: 'csv-sales',
      capabilities: { salesSource: new CsvSalesSource(config, folders) },
      check: async () => [
        await checkFolder('sales drop folder', folders.inDir, { mode: 'read-write', create: false }),
      ],
      close: async () => undefined,
    };
    return Promise.resolve(connector);
  },
});
