/** The plugin contract: how a connector type or a flow declares itself, and the registry the daemon builds. */
export { defineConnector, type ConnectorContext, type ConnectorDefinition } from './connector.js';
export {
  capabilitiesUsed,
  defineFlow,
  type ApiSide,
  type FlowDefinition,
  type FlowDeps,
  type FlowJobConfig,
  type Mappings,
} from './flow.js';
export { jobConnector, type JobConnector } from './job-connector.js';
export { PluginRegistry, type PluginDefinition } from './registry.js';
