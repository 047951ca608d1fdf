/** Problem codes of part 7 with their HTTP status, and validation item codes (seen plus chosen, see gaps.ts). */
import { GAP_ERROR_STATUS, VALIDATION_ITEM_CODES_CHOSEN } from './gaps.js';

/** The table of part 7. */
export const CONTRACT_ERROR_STATUS = {
  unauthorized: 401,
  key_expired: 401,
  key_revoked: 401,
  client_suspended: 403,
  ip_not_allowed: 403,
  scope_missing: 403,
  plan_required: 403,
  not_found: 404,
  idempotency_conflict: 409,
  conflict: 409,
  precondition_failed: 412,
  file_too_large: 413,
  validation_error: 422,
  rate_limited: 429,
  internal_error: 500,
} as const;

/** Every problem code a response may carry: part 7 plus the gap choices (payload_too_large). */
export const ERROR_STATUS = { ...CONTRACT_ERROR_STATUS, ...GAP_ERROR_STATUS } as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** Validation item codes shown in the contract. */
export const VALIDATION_ITEM_CODES_SEEN = [
  'must_be_positive',
  'in_the_past',
  'unsupported_value',
  'invalid_enum',
  'not_found',
] as const;

/** Every validation item code the sandbox emits (seen in the contract plus chosen in gaps.ts). */
export const VALIDATION_ITEM_CODES = [
  ...VALIDATION_ITEM_CODES_SEEN,
  ...VALIDATION_ITEM_CODES_CHOSEN,
] as const;
