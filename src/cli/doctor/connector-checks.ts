import { dirname, resolve } from 'node:path';
import type { Config } from '../../config/index.js';
import type { ConnectorRegistry } from '../../connectors/index.js';
import { check, type DoctorCheck } from './check.js';

export async function connectorChecks(
  config: Config,
  configFile: string,
  registry: ConnectorRegistry,
): Promise<DoctorCheck[]> {
  const results: DoctorCheck[] = [];
  const known = new Set(registry.types());
  for (const [name, block] of Object.entries(config.connectors)) {
    const label = `connector ${name}`;
    if (!known.has(block.type)) {
      results.push(check('warn', label, `type ${block.type} is not in this build; not checked`));
      continue;
    }
    const { type, ...settings } = block;
    try {
      const connector = await registry.create(type, settings, {
        name,
        baseDir: dirname(resolve(configFile)),
      });
      try {
        for (const item of await connector.check()) {
          results.push(check(item.status, `${label}`, `${item.name}: ${item.detail}`, item.fix));
        }
      } finally {
        await connector.close();
      }
    } catch (error) {
      results.push(
        check(
          'fail',
          label,
          error instanceof Error ? error.message : String(error),
          'check the connection settings of this connector',
        ),
      );
    }
  }
  return results;
}
