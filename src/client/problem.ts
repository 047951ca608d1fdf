/** Turns an error response (problem+json or anything else, such as an HTML 502 page) into an ApiError. */
import {
  ApiError,
  ConflictApiError,
  PlanRequiredApiError,
  RETRYABLE_STATUSES,
  ValidationApiError,
  type ApiErrorCode,
  type ApiErrorInit,
  type ValidationErrorItem,
} from './errors.js';

export interface ErrorResponse {
  status: number;
  contentType: string | undefined;
  text: string;
  method: string;
  path: string;
  requestId: string | null;
}

/** The contract code a status implies when the body does not name one. */
function codeForStatus(status: number): ApiErrorCode {
  switch (status) {
    case 400:
    case 422:
      return 'validation_error';
    case 401:
      return 'unauthorized';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 412:
      return 'precondition_failed';
    case 413:
      return 'file_too_large';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 ? 'internal_error' : 'unexpected_status';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function parseValidationItems(value: unknown): ValidationErrorItem[] {
  if (!Array.isArray(value)) return [];
  const items: ValidationErrorItem[] = [];
  for (const entry of value) {
    if (!isRecord(entry)) continue;
    const field = optionalString(entry['field']);
    const code = optionalString(entry['code']);
    if (field === undefined || code === undefined) continue;
    const message = optionalString(entry['message']);
    items.push(message === undefined ? { field, code } : { field, code, message });
  }
  return items;
}

/** The problem's `errors` items for the message: which fields, and what is wrong with each. */
function describeItems(items: readonly ValidationErrorItem[]): string {
  return `[${items.map((item) => `${item.field}: ${item.message ?? item.code}`).join('; ')}]`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeBody(contentType: string | undefined, length: number): string {
  const kind = contentType?.split(';')[0]?.trim() || 'no content type';
  return `response was not a problem document (${kind}, ${length} bytes)`;
}

/** Whether an error with this status and code may be retried (never idempotency or precondition failures). */
export function isRetryable(status: number, code: ApiErrorCode): boolean {
  if (code === 'idempotency_conflict' || code === 'precondition_failed') return false;
  return RETRYABLE_STATUSES.has(status);
}

export function errorFromResponse(response: ErrorResponse): ApiError {
  const { status, method, path } = response;
  const body = response.text.length > 0 ? parseJson(response.text) : undefined;
  const problem = isRecord(body) && typeof body['code'] === 'string' ? body : undefined;
  const code: ApiErrorCode = problem ? (problem['code'] as string) : codeForStatus(status);
  const requestId = response.requestId ?? optionalString(problem?.['request_id']) ?? null;
  const title = optionalString(problem?.['title']);
  const detail = optionalString(problem?.['detail']);
  const items = parseValidationItems(problem?.['errors']);
  const explanation = problem
    ? [title, detail].filter((part) => part !== undefined && part.length > 0).join(': ') || 'no detail given'
    : describeBody(response.contentType, response.text.length);
  const fields = items.length === 0 ? '' : ` ${describeItems(items)}`;
  const init: ApiErrorInit = {
    status,
    code,
    method,
    path,
    requestId,
    retryable: isRetryable(status, code),
    message: `${method} ${path} failed with HTTP ${status} ${code}: ${explanation}${fields}${
      requestId ? ` (request ${requestId})` : ''
    }`,
    body,
    ...(title === undefined ? {} : { title }),
    ...(detail === undefined ? {} : { detail }),
  };
  if (code === 'validation_error') {
    return new ValidationApiError({ ...init, items });
  }
  if (code === 'plan_required') {
    return new PlanRequiredApiError({
      ...init,
      upgradeUrl: optionalString(problem?.['upgrade_url']) ?? null,
    });
  }
  if (code === 'conflict') {
    return new ConflictApiError({ ...init, items });
  }
  return new ApiError(init);
}
