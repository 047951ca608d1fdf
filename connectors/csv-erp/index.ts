import path from 'node:path';
import type { CheckResult, Connector } from '../../src/connectors/connector.js';
import type { ConnectorDefinition } from '../../src/connectors/registry.js';
import { access, constants, mkdir } from 'node:fs/promises';
import { csvErpConfigSchema } from './config.js';
import { CsvInbound } from './inbound.js';
import { CsvOrderSink } from './orders.js';

export { csvErpConfigSchema, type CsvErpConfig } from './config.js';
export { parseCsv, formatCsv, csvRecords } from '../../src/kit/csv.js';
export { CsvInbound } from './inbound.js';
export { CsvOrderSink } from './orders.js';

export const csvErpConnectorDefinition: ConnectorDefinition<typeof csvErpConfigSchema> = {
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
        await checkFolder('ERP export folder', inDir, constants.R_OK | constants.W_OK),
        await checkFolder('ERP import folder', outDir, constants.W_OK),
      ],
      close: () => Promise.resolve(),
    };
    return Promise.resolve(connector);
  },
};

async function checkFolder(name: string, dir: string, mode: number): Promise<CheckResult> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, mode);
    return { name, status: 'ok', detail: dir };
  } catch (error) {
    return {
      name,
      status: 'fail',
      detail: `${dir}: ${error instanceof Error ? error.message : String(error)}`,
      fix: 'create the folder and give the service user read and write access to it',
    };
  }
}
