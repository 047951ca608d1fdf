export { ConfigError, formatIssue, type ConfigIssue } from './errors.js';
export { duration, parseDuration, DURATION_HINT } from './duration.js';
export { secret, markSecret, REDACTED } from './secret.js';
export { mappingTableName } from './mapping-table.js';
export { NO_PLUGINS, type ConnectorSchema, type FlowSchema, type PluginSchemas } from './plugin-schemas.js';
export {
  coreConfigSchema,
  cronExpression,
  timeZone,
  DEFAULT_TIMEZONE,
  type CoreConfig,
  type JobConfig,
} from './schema.js';
export {
  loadConfig,
  parseConfig,
  type Config,
  type ConnectorConfig,
  type LoadedConfig,
  type LoadOptions,
} from './load.js';
export {
  configFiles,
  loadConfigSet,
  loadCompany,
  NotAnOfficeError,
  loadOfficeToList,
  loadOfficeToRun,
  readAgain,
  type ConfigSet,
  type OfficeConfig,
  type OfficeReportConfig,
} from './office.js';
export { COMPANY_KEYS } from './companies-schema.js';
export { apiKeySettingName, type ApiKeySetting } from './api-key-setting.js';
export { redactionPaths, redactConfig, secretValues, configSecretPaths } from './redact.js';
export { configJsonSchema } from './json-schema.js';
export { deepFreeze, type DeepReadonly } from './freeze.js';
export {
  notificationsSchema,
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  type NotificationsConfig,
  type NotificationChannelConfig,
  type NotificationRule,
} from './notifications-schema.js';
