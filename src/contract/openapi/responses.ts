/**
 * Response headers and the problem+json responses of part 7 (components.headers, components.responses).
 * 401, 403, 429 and 5XX are attached to every authenticated operation; the rest per operation.
 */
import { RATE_LIMITS_BY_PLAN } from '../gaps.js';
import { LIMITS } from '../limits.js';
import { schemaRef } from './components.js';
import type { JsonObject } from './types.js';

const integer = { type: 'integer', minimum: 0 } as const;

export const headerRef = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` });
export const responseRef = (name: string): JsonObject => ({ $ref: `#/components/responses/${name}` });

export const HEADERS: Record<string, JsonObject> = {
  'X-Request-Id': {
    description: 'Identifies the request; quote it when reporting a problem. Sent on every response.',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
  'RateLimit-Limit': {
    description: `Requests allowed per minute for this client (see GET /me rate_limit; per plan: ${Object.entries(
      RATE_LIMITS_BY_PLAN,
    )
      .map(([plan, limit]) => `${plan} ${limit.per_minute}`)
      .join(', ')}).`,
    schema: integer,
    'x-contract-gap': 'G21',
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: integer },
  'RateLimit-Reset': {
    description: 'Seconds until the current window resets (delta seconds).',
    schema: integer,
    'x-contract-gap': 'G21',
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: integer,
  },
  ETag: {
    description: 'Strong entity tag of the resource; send it back in If-Match.',
    required: true,
    schema: { type: 'string' },
    'x-contract-gap': 'G6',
  },
};

/** Headers every response carries (X-Request-Id) or may carry (RateLimit-*). */
export function commonHeaders(): Record<string, JsonObject> {
  return {
    'X-Request-Id': headerRef('X-Request-Id'),
    'RateLimit-Limit': headerRef('RateLimit-Limit'),
    'RateLimit-Remaining': headerRef('RateLimit-Remaining'),
    'RateLimit-Reset': headerRef('RateLimit-Reset'),
  };
}

function problem(description: string, extraHeaders: Record<string, JsonObject> = {}): JsonObject {
  return {
    description,
    headers: { ...commonHeaders(), ...extraHeaders },
    content: { 'application/problem+json': { schema: schemaRef('Problem') } },
  };
}

/** The problem responses by status, named after the problem code that usually comes with them. */
export const ERROR_RESPONSES = {
  400: ['BadRequest', problem('validation_error: a malformed token request (POST /oauth/token).')],
  401: [
    'Unauthorized',
    problem('unauthorized, key_expired or key_revoked: the credential is missing or invalid.'),
  ],
  403: [
    'Forbidden',
    problem(
      'scope_missing, plan_required (with upgrade_url), ip_not_allowed or client_suspended: the credential may ' +
        'not call this endpoint.',
    ),
  ],
  404: ['NotFound', problem('not_found: the resource is missing or belongs to another account.')],
  409: [
    'Conflict',
    problem(
      'conflict (the current state forbids it) or idempotency_conflict (key reused with another body).',
    ),
  ],
  412: ['PreconditionFailed', problem('precondition_failed: If-Match does not match the current ETag.')],
  413: [
    'PayloadTooLarge',
    {
      ...problem(
        `file_too_large (a file over ${LIMITS.fileUploadMaxBytes} bytes) or payload_too_large (a JSON body over ` +
          'the maximum, gap G22).',
      ),
      'x-contract-gap': 'G22',
    },
  ],
  422: ['ValidationError', problem('validation_error: invalid body or parameters; see errors[].')],
  429: [
    'RateLimited',
    problem('rate_limited: too many requests; wait Retry-After seconds.', {
      'Retry-After': headerRef('Retry-After'),
    }),
  ],
  '5XX': ['InternalError', problem('internal_error: a service error; retry with exponential backoff.')],
} as const satisfies Record<string, readonly [string, JsonObject]>;

export type ErrorStatus = keyof typeof ERROR_RESPONSES;

export function componentResponses(): Record<string, JsonObject> {
  return Object.fromEntries(Object.values(ERROR_RESPONSES).map(([name, body]) => [name, body]));
}
