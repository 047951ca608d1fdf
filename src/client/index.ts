/** The typed client of the Purchasing and Supply API v2. */
export {
  createApiClient,
  readOnlyApiClient,
  type ApiClient,
  type ApiClientOptions,
} from './create-client.js';
export {
  ApiError,
  ValidationApiError,
  PlanRequiredApiError,
  ConflictApiError,
  NetworkApiError,
  ClientConfigError,
  CONTRACT_ERROR_CODES,
  isApiError,
  type ApiErrorCode,
  type ContractErrorCode,
  type ClientErrorCode,
  type ValidationErrorItem,
} from './errors.js';
export {
  environmentOfKey,
  environmentOfBaseUrl,
  assertEnvironmentsMatch,
  type ApiEnvironment,
} from './environment.js';
export type { AuthOptions } from './auth.js';
export type { ApiCallEvent, BeforeWrite, CallOptions, WriteAllowance } from './transport.js';
export type { RetryOptions } from './retry-policy.js';
export type { RateLimiterOptions, RateLimiterStats } from './rate-limiter.js';
export type { Page, PageOptions, Paginated, ListResult, ItemsOptions, PageQuery } from './pagination.js';
export { MAX_PAGE_SIZE } from './pagination.js';
export type { QuarantinedItem, DriftEvent, DriftListener } from './parsing.js';
export type { WithMeta } from './context.js';
export { BATCH_LIMITS, chunk, mergeBatchResponses } from './batch.js';
export { MAX_FILE_BYTES, type UploadFileInput, type UploadedFile } from './areas/files.js';
export { CLIENT_LOG_REDACT_PATHS } from './redact.js';
export type * from './request-types.js';
