/** Connector type `csv`: journal batches as CSV files in a folder, one file per batch. */
import type { Connector } from '../../src/connector-contract/connector.js';
import { defineConnector, type ConnectorContext } from '../../src/plugin/index.js';
import { checkFolder, resolveImportDir } from '../../src/kit/folder.js';
import { csvAccountingConfigSchema, type CsvAccountingConfig } from './config.js';
import { CsvAccountingWriter } from './writer.js';

export const CSV_ACCOUNTING_TYPE = 'csv';

export const csvAccountingConnectorDefinition = defineConnector({
  type: CSV_ACCOUNTING_TYPE,
  description: 'CSV files for accounting imports, one file per journal batch',
  configSchema: csvAccountingConfigSchema,
  capabilities: ['accountingWriter'],
  create(config: CsvAccountingConfig, context: ConnectorContext): Promise<Connector> {
    const resolved = { ...config, output_dir: resolveImportDir(config.output_dir, context.baseDir) };
    const writer = new CsvAccountingWriter(resolved, context.name);
    return Promise.resolve({
      type: CSV_ACCOUNTING_TYPE,
      capabilities: { accountingWriter: writer },
      check: async () => [
        await checkFolder('import folder', resolved.output_dir, { mode: 'write', create: true }),
      ],
      close: () => Promise.resolve(),
    });
  },
});
