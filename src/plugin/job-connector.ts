/** The one way a flow reaches its job's connector: by the capability it needs, with errors naming the config key. */
import type { CapabilityMap, CapabilityName } from '../connector-contract/index.js';
import type { FlowDeps, FlowJobConfig } from './flow.js';

export interface JobConnector {
  /** `jobs.<name>.connector`: the connector's name, for labels, ledgers and errors. */
  readonly name: string;
  /** The capability, or an error naming the job key, the connector, its type, the flow and what is missing. */
  require<K extends CapabilityName>(capability: K): CapabilityMap[K];
  /** The capability when the connector offers it. */
  offered<K extends CapabilityName>(capability: K): CapabilityMap[K] | undefined;
}

/**
 * The connector a job names. Throws when the job names none; the connector itself is looked up on each call, so a
 * connector that is down fails the run that needs it rather than the daemon's start.
 */
export function jobConnector(
  flow: string,
  job: Pick<FlowJobConfig<unknown>, 'name' | 'connector'>,
  deps: Pick<FlowDeps, 'connector'>,
): JobConnector {
  const name = job.connector;
  if (name === undefined || name === '') {
    throw new Error(
      `jobs.${job.name}.connector is required: the ${flow} flow works through a connector; name one of the connectors: entries`,
    );
  }
  return {
    name,
    require(capability) {
      const connector = deps.connector(name);
      const offered = connector.capabilities[capability];
      if (offered === undefined) {
        throw new Error(
          `jobs.${job.name}.connector: connector "${name}" (type ${connector.type}) does not offer ${capability}, which the ${flow} flow requires; configure it in connectors.${name} or name a connector that does`,
        );
      }
      return offered;
    },
    offered: (capability) => deps.connector(name).capabilities[capability],
  };
}
