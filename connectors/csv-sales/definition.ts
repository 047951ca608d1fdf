import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import type { CheckResult, Connector } from '../../src/connectors/connector.js';
import type { ConnectorDefinition } from '../../src/connectors/registry.js';
import { csvSalesConfigSchema } from './config.js';
import { CsvSalesSource, salesFolders } from './source.js';

export const csvSalesConnectorDefinition: ConnectorDefinition<typeof csvSalesConfigSchema> = {
  type: 'csv-sales',
  description:
    'POS sales drop folder: Z-report and item-sale CSV files, moved to done/ or failed/ after processing',
  configSchema: csvSalesConfigSchema,
  capabilities: ['salesSource'],
  create(config, context) {
    const folders = salesFolders(config, context.baseDir);
    const connector: Connector = {
      type: 'csv-sales',
      capabilities: { salesSource: new CsvSalesSource(config, folders) },
      check: async () => [await checkFolder(folders.inDir)],
      close: async () => undefined,
    };
    return Promise.resolve(connector);
  },
};

async function checkFolder(dir: string): Promise<CheckResult> {
  const name = 'sales drop folder';
  try {
    if (!(await stat(dir)).isDirectory()) {
      return { name, status: 'fail', detail: `${dir} is not a folder`, fix: 'point in_dir at a folder' };
    }
    await access(dir, constants.R_OK | constants.W_OK);
    return { name, status: 'ok', detail: `${dir} is readable and writable` };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      name,
      status: 'fail',
      detail: `${dir}: ${detail}`,
      fix: 'create the folder and give the service user read and write access to it (files are moved to done/ and failed/ inside it)',
    };
  }
}
