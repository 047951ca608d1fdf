export { runDaemon, type Daemon, type DaemonOptions } from './start/run-daemon.js';
export { runOffice, type OfficeDaemon, type OfficeOptions } from './office/office-daemon.js';
export type { OfficeReload } from './office/office-reload.js';
export type { Service, StopOptions } from './services/service.js';
export {
  Lifecycle,
  ServicesStopError,
  StartAbortedError,
  startServices,
  type LifecycleObserver,
} from './services/lifecycle.js';
export { ServiceGroup, type ServiceGroupState } from './services/service-group.js';
export { runJobOnce, UnknownJobError, type SyncOnceOptions } from './jobs/sync-once.js';
export { buildEnvironment } from './services/environment-service.js';
export type { Environment, BuiltJob } from './services/environment.js';
export { buildPluginRegistry, builtinPlugins, type PluginRegistry } from './plugins/builtin.js';
export { openApiEndpoint, type ApiEndpoint } from '../api-access/index.js';
export { runDemo, defaultDemoConfigPath, type DemoOptions } from './start/demo.js';
export { leadershipSettings } from './start/leadership-settings.js';
export { takeOnceLease, type OnceLease } from './jobs/once-lease.js';
