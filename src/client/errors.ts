/**
 * One error family for everything the API client can fail with. Callers branch on `code` (the contract's
 * part 7 codes, plus a few client-side codes); `retryable` is data, never guessed from a message.
 */
import { ERROR_CODES, type ErrorCode } from '../contract/index.js';

/** Codes the contract defines (part 7, plus payload_too_large from the gap choices). */
export const CONTRACT_ERROR_CODES = ERROR_CODES;
export type ContractErrorCode = ErrorCode;

/** Codes the client raises itself. */
export type ClientErrorCode =
  /** The connection failed or was reset before a complete response arrived. */
  | 'network_error'
  /** The per-call deadline passed before a successful response. */
  | 'deadline_exceeded'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** A 2xx response whose body is not what the contract promises (bad JSON, bad envelope, bad resource). */
  | 'invalid_response'
  /** An error status whose body is not a problem document and whose status maps to no contract code. */
  | 'unexpected_status';

/** Contract codes, client codes, or a code a newer API version added. */
export type ApiErrorCode = ContractErrorCode | ClientErrorCode | (string & {});

export interface ValidationErrorItem {
  field: string;
  code: string;
  message?: string;
}

export interface ApiErrorInit {
  status: number;
  code: ApiErrorCode;
  message: string;
  method: string;
  path: string;
  requestId?: string | null;
  retryable?: boolean;
  title?: string;
  detail?: string;
  /** Parsed response body when it was JSON (problem document or otherwise). */
  body?: unknown;
  attempts?: number;
  /** The wait the server asked for (Retry-After, or RateLimit-Reset with nothing remaining). */
  retryAfterMs?: number;
  cause?: unknown;
}

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  /** HTTP status; 0 when no response was received or the error is client-side. */
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly requestId: string | null;
  readonly retryable: boolean;
  readonly method: string;
  /** Request path below the base URL, without the query string. */
  readonly path: string;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly body: unknown;
  /** Attempts made before giving up (1 when not retried). */
  attempts: number;
  /** The wait the server asked for, when it named one; schedulers can use it after the client gives up. */
  retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.retryable = init.retryable ?? false;
    this.method = init.method;
    this.path = init.path;
    this.title = init.title;
    this.detail = init.detail;
    // Not enumerable: error serializers (pino's among them) must not dump response bodies into logs.
    Object.defineProperty(this, 'body', { value: init.body, enumerable: false, writable: false });
    this.attempts = init.attempts ?? 1;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 422 (or 400 for a malformed token request) with the offending fields. */
export class ValidationApiError extends ApiError {
  override readonly name = 'ValidationApiError';
  readonly items: readonly ValidationErrorItem[];
  constructor(init: ApiErrorInit & { items: readonly ValidationErrorItem[] }) {
    super(init);
    this.items = init.items;
  }
}

/** 403 plan_required: the account's plan lacks the endpoint. */
export class PlanRequiredApiError extends ApiError {
  override readonly name = 'PlanRequiredApiError';
  readonly upgradeUrl: string | null;
  constructor(init: ApiErrorInit & { upgradeUrl: string | null }) {
    super(init);
    this.upgradeUrl = init.upgradeUrl;
  }
}

/** 409 conflict carrying per-field items (for example journal lines already exported). */
export class ConflictApiError extends ApiError {
  override readonly name = 'ConflictApiError';
  readonly items: readonly ValidationErrorItem[];
  constructor(init: ApiErrorInit & { items: readonly ValidationErrorItem[] }) {
    super(init);
    this.items = init.items;
  }
}

/** No usable response: connection refused or reset, socket closed mid-body, DNS failure. */
export class NetworkApiError extends ApiError {
  override readonly name = 'NetworkApiError';
}

/** Misuse detected before any request is sent (wrong key for the environment, file too large, bad limit). */
export class ClientConfigError extends Error {
  override readonly name = 'ClientConfigError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
