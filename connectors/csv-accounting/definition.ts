/** Connector type `csv`: journal batches as CSV files in a folder, one file per batch. */
import type { Connector } from '../../src/connectors/connector.js';
import type { ConnectorContext, ConnectorDefinition } from '../../src/connectors/registry.js';
import type { ConnectorRegistration } from '../../src/config/registry.js';
import { checkFolder, resolveImportDir } from '../hashavshevet/definition.js';
import { csvAccountingConfigSchema, type CsvAccountingConfig } from './config.js';
import { CsvAccountingWriter } from './writer.js';

export const CSV_ACCOUNTING_TYPE = 'csv';

export const csvAccountingConnectorDefinition: ConnectorDefinition<typeof csvAccountingConfigSchema> = {
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
      check: async () => [await checkFolder(resolved.output_dir)],
      close: () => Promise.resolve(),
    });
  },
};

export const csvAccountingConfigRegistration: ConnectorRegistration = {
  type: CSV_ACCOUNTING_TYPE,
  schema: csvAccountingConfigSchema,
  description: csvAccountingConnectorDefinition.description,
  check: async (config) => {
    const parsed = csvAccountingConfigSchema.parse(config);
    const result = await checkFolder(resolveImportDir(parsed.output_dir, process.cwd()));
    return {
      ok: result.status === 'ok',
      message: result.fix ? `${result.detail}; ${result.fix}` : result.detail,
    };
  },
};
