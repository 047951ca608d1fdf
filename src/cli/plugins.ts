/**
 * The CLI's view of what this build ships. The list itself lives in src/daemon/builtin.ts, the one composition
 * root; it is imported lazily so `--help` stays fast.
 */
import type { SchemaRegistry } from '../config/index.js';
import type { ConnectorRegistry } from '../connectors/index.js';

export async function buildConfigRegistry(): Promise<SchemaRegistry> {
  const { buildRegistries } = await import('../daemon/builtin.js');
  return buildRegistries().config;
}

/** Live connector definitions, for `doctor` connector checks. */
export async function buildConnectorRegistry(): Promise<ConnectorRegistry> {
  const { buildRegistries } = await import('../daemon/builtin.js');
  return buildRegistries().connectors;
}
