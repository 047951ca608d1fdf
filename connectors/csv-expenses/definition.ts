import type { Connector } from '../../src/connector-contract/connector.js';
import { checkFolder } from '../../src/kit/folder.js';
import { defineConnector } from '../../src/plugin/index.js';
import { csvExpensesConfigSchema } from './config.js';
import { CsvExpenseSource, expenseFolders } from './source.js';

export const csvExpensesConnectorDefinition = defineConnector({
  type: 'csv-expenses',
  description:
    'Expenses drop folder: CSV files of expense lines grouped by a reference, with receipt files beside them; sent expenses recorded in the folder and files moved to done/',
  configSchema: csvExpensesConfigSchema,
  capabilities: ['expenseSource'],
  create(config, context) {
    const folders = expenseFolders(config, context.baseDir, {
      connector: context.name,
      configFile: context.configFile,
    });
    const connector: Connector = {
      type: 'csv-expenses',
      capabilities: { expenseSource: new CsvExpenseSource(config, folders, Date.now, context.mayCommit) },
      check: async () => [
        await checkFolder('expenses drop folder', folders.inDir, { mode: 'read-write', create: false }),
      ],
      close: async () => undefined,
    };
    return Promise.resolve(connector);
  },
});
