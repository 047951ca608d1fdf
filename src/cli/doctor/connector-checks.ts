import { dirname, resolve } from 'node:path';
import type { Config } from '../../config/index.js';
import type { Connector } from '../../connector-contract/index.js';
import type { PluginRegistry } from '../../plugin/index.js';
import { describePreflightProblem } from '../../daemon/services/preflight-service.js';
import { check, type DoctorCheck } from './check.js';

/** The connector's statements prepared against the real target, one line per problem. */
async function preflightChecks(
  connector: Connector,
  name: string,
  configFile: string,
): Promise<DoctorCheck[]> {
  if (connector.preflight === undefined) return [];
  const label = `connector ${name}`;
  try {
    const problems = await connector.preflight();
    if (problems.length === 0) {
      return [
        check('ok', label, 'statements: prepared; every parameter and column matches what the flows use'),
      ];
    }
    return problems.map((problem) =>
      check(problem.status, label, describePreflightProblem(configFile, name, problem), problem.fix),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [check('warn', label, `statements not checked: ${message}`)];
  }
}

export async function connectorChecks(
  config: Config,
  configFile: string,
  registry: PluginRegistry,
): Promise<DoctorCheck[]> {
  const results: DoctorCheck[] = [];
  const known = new Set(registry.connectorTypes());
  for (const [name, block] of Object.entries(config.connectors)) {
    const label = `connector ${name}`;
    if (!known.has(block.type)) {
      results.push(check('warn', label, `type ${block.type} is not in this build; not checked`));
      continue;
    }
    const { type, ...settings } = block;
    try {
      const connector = await registry.createParsedConnector(type, settings, {
        name,
        baseDir: dirname(resolve(configFile)),
        configFile: resolve(configFile),
      });
      try {
        const checks = await connector.check();
        for (const item of checks) {
          results.push(check(item.status, `${label}`, `${item.name}: ${item.detail}`, item.fix));
        }
        if (!checks.some((item) => item.status === 'fail')) {
          results.push(...(await preflightChecks(connector, name, configFile)));
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
