import type { CapabilityMap, CapabilityName } from './capabilities.js';

export interface CheckResult {
  readonly name: string;
  readonly status: 'ok' | 'warn' | 'fail';
  readonly detail: string;
  /** What to do about a warn or fail, in the user's terms. */
  readonly fix?: string;
}

/** A live connector instance: the capabilities it offers plus connectivity checks for `doctor` and `/readyz`. */
export interface Connector {
  readonly type: string;
  readonly capabilities: Partial<CapabilityMap>;
  check(): Promise<CheckResult[]>;
  close(): Promise<void>;
}

/** Returns the capability or throws a clear error naming the connector and what the job needs. */
export function requireCapability<K extends CapabilityName>(
  connector: Connector,
  name: K,
  connectorName: string,
): CapabilityMap[K] {
  const capability = connector.capabilities[name];
  if (capability === undefined) {
    throw new Error(
      `connector "${connectorName}" (type ${connector.type}) does not offer ${name}; configure the statements or choose a connector type that does`,
    );
  }
  return capability as CapabilityMap[K];
}
