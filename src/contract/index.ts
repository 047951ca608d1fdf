/** The contract as code: formats, enums, limits, gap choices, schemas in two modes, types. */
export * from './formats.js';
export * from './enums.js';
export * from './event-types.js';
export * from './error-codes.js';
export * from './gaps.js';
export { LIMITS } from './limits.js';
export { type Mode, type OpenEnum, type SchemaKit, strictKit, lenientKit, itemCodeParams } from './kit.js';
export { pageOf, listOf } from './shared.js';
export { webhookUrl, type WebhookUrlOptions } from './requests-platform.js';
export {
  buildContract,
  strict,
  lenient,
  type BuildOptions,
  type ContractSchemas,
  type SchemaName,
} from './build.js';
export {
  parseLenient,
  parseLenientAs,
  describeIssues,
  formatPath,
  valueAt,
  type DriftItem,
  type ParseIssue,
  type LenientResult,
} from './drift.js';
export { parseEventData, isKnownEventType, type EventDataOf } from './event-data.js';
export { validationItemsFrom, type ValidationItem } from './validation-items.js';
export {
  resourceJsonSchemas,
  requestJsonSchemas,
  RESOURCE_SCHEMA_NAMES,
  REQUEST_SCHEMA_NAMES,
  type JsonSchema,
} from './json-schema.js';
export type * from './types.js';
export type { ApiSide } from './side.js';
