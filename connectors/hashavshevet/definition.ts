/** Connector type `hashavshevet`: journal batches as flexible text import files in a folder. */
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { CheckResult, Connector } from '../../src/connectors/connector.js';
import type { ConnectorContext, ConnectorDefinition } from '../../src/connectors/registry.js';
import type { ConnectorRegistration } from '../../src/config/registry.js';
import { hashavshevetConfigSchema, type HashavshevetConfig } from './config.js';
import { HashavshevetWriter } from './writer.js';

export const HASHAVSHEVET_TYPE = 'hashavshevet';

export function resolveImportDir(folder: string, baseDir: string): string {
  return isAbsolute(folder) ? folder : resolve(baseDir, folder);
}

/** A writable-folder check shared by the file-based accounting connectors. */
export async function checkFolder(folder: string): Promise<CheckResult> {
  try {
    await mkdir(folder, { recursive: true });
    await access(folder, constants.W_OK);
    return { name: 'import folder', status: 'ok', detail: `${folder} is writable` };
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'not accessible';
    return {
      name: 'import folder',
      status: 'fail',
      detail: `${folder} is not writable (${reason})`,
      fix: 'create the folder and give the supply-sync service user write access to it',
    };
  }
}

export const hashavshevetConnectorDefinition: ConnectorDefinition<typeof hashavshevetConfigSchema> = {
  type: HASHAVSHEVET_TYPE,
  description: 'Hashavshevet flexible text import files (MOVEIN.DOC data + MOVEIN.PRM layout), one per batch',
  configSchema: hashavshevetConfigSchema,
  capabilities: ['accountingWriter'],
  create(config: HashavshevetConfig, context: ConnectorContext): Promise<Connector> {
    const resolved = { ...config, import_dir: resolveImportDir(config.import_dir, context.baseDir) };
    const writer = new HashavshevetWriter(resolved, context.name);
    return Promise.resolve({
      type: HASHAVSHEVET_TYPE,
      capabilities: { accountingWriter: writer },
      check: async () => [await checkFolder(resolved.import_dir)],
      close: () => Promise.resolve(),
    });
  },
};

/** For the config area's registerConnectorType / SchemaRegistry.registerConnector. */
export const hashavshevetConfigRegistration: ConnectorRegistration = {
  type: HASHAVSHEVET_TYPE,
  schema: hashavshevetConfigSchema,
  description: hashavshevetConnectorDefinition.description,
  check: async (config) => {
    const parsed = hashavshevetConfigSchema.parse(config);
    const result = await checkFolder(resolveImportDir(parsed.import_dir, process.cwd()));
    return {
      ok: result.status === 'ok',
      message: result.fix ? `${result.detail}; ${result.fix}` : result.detail,
    };
  },
};
