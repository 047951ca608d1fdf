/** application/problem+json rendering (RFC 9457) and the small constructors handlers use. */
import { ProblemError } from './types.js';

export const DOCS_URL = 'https://docs.supply-sync.dev/api/v2';
export const UPGRADE_URL = 'https://app.supply-sync.dev/settings/billing/upgrade';

const TITLES: Record<string, string> = {
  unauthorized: 'Unauthorized',
  key_expired: 'API key expired',
  key_revoked: 'API key revoked',
  client_suspended: 'Integration suspended',
  ip_not_allowed: 'IP address not allowed',
  scope_missing: 'Scope missing',
  plan_required: 'Plan upgrade required',
  not_found: 'Not found',
  idempotency_conflict: 'Idempotency key reused',
  conflict: 'Conflict',
  precondition_failed: 'Precondition failed',
  file_too_large: 'File too large',
  payload_too_large: 'Payload too large',
  validation_error: 'Validation error',
  rate_limited: 'Too many requests',
  internal_error: 'Internal error',
};

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  instance?: string;
  request_id: string;
  errors?: { field: string; code: string; message?: string }[];
  upgrade_url?: string;
}

export function problemBody(problem: ProblemError, requestId: string, instance?: string): ProblemBody {
  const body: ProblemBody = {
    type: `${DOCS_URL}/errors/${problem.code}`,
    title: TITLES[problem.code] ?? problem.code.replace(/_/g, ' '),
    status: problem.status,
    code: problem.code,
    detail: problem.detail,
    request_id: requestId,
  };
  if (instance !== undefined) body.instance = instance;
  if (problem.extra.errors) body.errors = problem.extra.errors;
  if (problem.extra.upgrade_url !== undefined) body.upgrade_url = problem.extra.upgrade_url;
  return body;
}

export function notFound(detail = 'The resource does not exist.'): ProblemError {
  return new ProblemError(404, 'not_found', detail);
}

/** 422 validation_error with one item per offending field. */
export function validationError(
  items: { field: string; code: string; message?: string }[],
  detail = 'The request is not valid.',
  status = 422,
): ProblemError {
  return new ProblemError(status, 'validation_error', detail, { errors: items });
}

export function conflict(detail: string): ProblemError {
  return new ProblemError(409, 'conflict', detail);
}
