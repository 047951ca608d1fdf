/** Reusable parameters (components.parameters): paging, filters and the request headers of parts 4, 7 and 8. */
import { LIMITS } from '../limits.js';
import { CURSOR_RULES } from '../gaps.js';
import type { JsonObject } from './types.js';
import { OPEN_ENUM_NOTE } from './kit.js';

const DATE = { type: 'string', format: 'date' } as const;

/** A comma-separated list (`status=a,b`) of an open enum: known values listed, others accepted. */
export function commaList(values: readonly string[]): JsonObject {
  return {
    type: 'array',
    items: {
      anyOf: [
        { type: 'string', enum: [...values] },
        { type: 'string', description: OPEN_ENUM_NOTE },
      ],
    },
  };
}

/** A query parameter object. */
export function queryParam(
  name: string,
  schema: JsonObject,
  description: string,
  required = false,
): JsonObject {
  const list = schema['type'] === 'array';
  return {
    name,
    in: 'query',
    required,
    description,
    schema,
    ...(list ? { style: 'form', explode: false } : {}),
  };
}

export function pathParam(
  name: string,
  description: string,
  schema: JsonObject = { type: 'string', minLength: 1 },
) {
  return { name, in: 'path', required: true, description, schema };
}

export const paramRef = (name: string): JsonObject => ({ $ref: `#/components/parameters/${name}` });

export const PARAMETERS: Record<string, JsonObject> = {
  cursor: {
    ...queryParam(
      'cursor',
      { type: 'string', pattern: CURSOR_RULES.pattern.source },
      'The `next_cursor` of the previous page (opaque). An invalid cursor is 422 validation_error on field cursor.',
    ),
    'x-contract-gap': 'G33',
  },
  limit: queryParam(
    'limit',
    {
      type: 'integer',
      minimum: LIMITS.page.minLimit,
      maximum: LIMITS.page.maxLimit,
      default: LIMITS.page.defaultLimit,
    },
    `Page size, ${LIMITS.page.minLimit} to ${LIMITS.page.maxLimit} (default ${LIMITS.page.defaultLimit}).`,
  ),
  updated_since: queryParam(
    'updated_since',
    { type: 'string', format: 'date-time' },
    'Only items whose updated_at is strictly after this timestamp (RFC 3339 with a UTC offset).',
  ),
  from: queryParam('from', DATE, 'First date, inclusive (YYYY-MM-DD).'),
  to: queryParam('to', DATE, 'Last date, inclusive (YYYY-MM-DD).'),
  expand: queryParam(
    'expand',
    { type: 'string' },
    'Comma-separated expansions such as lines, supplier, files, history; `-lines` leaves order lines out. ' +
      'Responses are compact by default.',
  ),
  branch_id: queryParam('branch_id', { type: 'string' }, 'Only records of this branch.'),
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Repeating a request with the same key and body within 24 hours returns the original response; the same ' +
      'key with another body is 409 idempotency_conflict.',
    schema: { type: 'string', minLength: 1, maxLength: LIMITS.idempotency.maxKeyLength },
  },
  IdempotencyKeyRequired: {
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    description:
      'Required here. Repeating a request with the same key and body within 24 hours returns the original ' +
      'response; the same key with another body is 409 idempotency_conflict.',
    schema: { type: 'string', minLength: 1, maxLength: LIMITS.idempotency.maxKeyLength },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'The ETag of a previous GET; a mismatch is 412 precondition_failed.',
    schema: { type: 'string' },
  },
};
