export { runDaemon, type Daemon, type DaemonOptions } from './run-daemon.js';
export type { Service, StopOptions } from './services/service.js';
export {
  Lifecycle,
  ServicesStopError,
  StartAbortedError,
  startServices,
  type LifecycleObserver,
} from './services/lifecycle.js';
export { ServiceGroup, type ServiceGroupState } from './services/service-group.js';
export { runJobOnce, UnknownJobError, type SyncOnceOptions } from './sync-once.js';
export { buildEnvironment, type Environment, type BuiltJob } from './services/environment-service.js';
export { buildPluginRegistry, builtinPlugins, type PluginRegistry } from './builtin.js';
export { openApiEndpoint, type ApiEndpoint } from '../api-access/index.js';
export { runDemo, defaultDemoConfigPath, type DemoOptions } from './demo.js';
export { leadershipSettings } from './leadership-settings.js';
export { takeOnceLease, type OnceLease } from './once-lease.js';
