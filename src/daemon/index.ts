export { startDaemon, type Daemon, type DaemonOptions } from './runtime.js';
export { runJobOnce, UnknownJobError, type SyncOnceOptions } from './sync-once.js';
export { buildEnvironment, type Environment, type BuiltJob } from './environment.js';
export { buildRegistries, builtinConnectorDefinitions, builtinFlows, type Registries } from './builtin.js';
export {
  defineFlow,
  type FlowDefinition,
  type FlowDeps,
  type FlowJobConfig,
  type ApiSide,
  type Mappings,
} from './flow-definition.js';
export { openApiEndpoint, type ApiEndpoint } from './api-endpoint.js';
export { runDemo, defaultDemoConfigPath, type DemoOptions } from './demo.js';
