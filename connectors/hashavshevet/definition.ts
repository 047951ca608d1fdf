/** Connector type `hashavshevet`: journal batches as flexible text import files in a folder. */
import type { Connector } from '../../src/connector-contract/connector.js';
import { defineConnector, type ConnectorContext } from '../../src/plugin/index.js';
import { checkFolder, resolveImportDir } from '../../src/kit/folder.js';
import { hashavshevetConfigSchema, type HashavshevetConfig } from './config.js';
import { HashavshevetWriter } from './writer.js';

export const HASHAVSHEVET_TYPE = 'hashavshevet';

export const hashavshevetConnectorDefinition = defineConnector({
  type: HASHAVSHEVET_TYPE,
  description: 'Hashavshevet flexible text import files (MOVEIN.DOC data + MOVEIN.PRM layout), one per batch',
  configSchema: hashavshevetConfigSchema,
  capabilities: ['accountingWriter'],
  create(config: HashavshevetConfig, context: ConnectorContext): Promise<Connector> {
    const resolved = { ...config, import_dir: resolveImportDir(config.import_dir, context.baseDir) };
    const writer = new HashavshevetWriter(resolved, context.name, context.configFile);
    return Promise.resolve({
      type: HASHAVSHEVET_TYPE,
      capabilities: { accountingWriter: writer },
      check: async () => [
        await checkFolder('import folder', resolved.import_dir, { mode: 'write', create: true }),
      ],
      close: () => Promise.resolve(),
    });
  },
});
