/**
 * A connector's capability the way a flow gets it in production: through jobConnector, as a job named after the
 * connector would, so tests exercise the same lookup and the same error.
 */
import type { CapabilityMap, CapabilityName, Connector } from '../../src/connector-contract/index.js';
import { jobConnector } from '../../src/plugin/index.js';

export function capabilityOf<K extends CapabilityName>(
  connector: Connector,
  capability: K,
  connectorName: string,
): CapabilityMap[K] {
  const job = { name: 'test', connector: connectorName };
  return jobConnector('test', job, { connector: () => connector }).require(capability);
}
