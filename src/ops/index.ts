export { createOpsHandler, createOpsServer, type RequestHandler } from './server.js';
export type { OpsServer, OpsServerOptions } from './server.js';
export { createOpsMetrics, processMetrics } from './metrics.js';
export type { MetricSources, OpsMetrics } from './metrics.js';
export { evaluateReadiness, jobCheck } from './readiness.js';
export type { CheckKind, CheckState, Readiness, ReadinessCheck } from './readiness.js';
export { DEFAULT_READINESS_POLICY } from './providers.js';
export type {
  ApiStatus,
  ConnectorCheck,
  DeadLetterStatus,
  JobStatus,
  OpsProviders,
  OutboxStatus,
  ReadinessPolicy,
} from './providers.js';
export { buildStatusSnapshot } from './status.js';
export type { JobView, StatusSnapshot } from './status.js';
export { renderStatusHtml } from './status-html.js';
export { ApiHealth, CREDENTIAL_CODES } from './api-health.js';
export type { ApiCall, CredentialCode, CredentialFailure } from './api-health.js';
export type { HealthReading } from './metrics.js';
export { jobNeedsAttention } from './readiness.js';
export type { DaemonInfo, DeadLetterFlow, DeadLetterReason, LeadershipStatus } from './providers.js';
export type { NotificationChannelStatus } from './notifications-view.js';
export type {
  ConsoleData,
  ConsoleJob,
  ConsoleRun,
  DeadLetterGroup,
  MissingMappingFixView,
} from './providers.js';
