/**
 * One operation of part 4 as data (OperationSpec), and its OpenAPI form. The builder adds what every operation
 * shares: the security requirement with its scope, X-Request-Id and RateLimit-* headers, the Idempotency-Key
 * header on POST, 401/403/429/5XX everywhere, 422 where parameters or a body can be invalid (except the anonymous
 * token request, whose invalid form is 400), 409 wherever an
 * Idempotency-Key may be reused and 413 wherever a JSON body is read.
 */
import { schemaRef } from './components.js';
import { paramRef } from './parameters.js';
import { ERROR_RESPONSES, type ErrorStatus, commonHeaders, headerRef, responseRef } from './responses.js';
import type { HttpVerb, JsonObject } from './types.js';

export interface SuccessSpec {
  status: number;
  description: string;
  /** A component schema name; omitted for a response without a body. */
  schema?: string;
  /** The response carries an ETag header. */
  etag?: boolean;
}

export interface OperationSpec {
  method: HttpVerb;
  /** Below /v2, with {param} placeholders. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** The scope of part 4 (or the gap choice); omitted when any valid credential may call it. */
  scope?: string;
  /** Minimum plan (part 5.6). */
  plan?: 'Pro' | 'Enterprise';
  /** No credential at all (POST /oauth/token). */
  anonymous?: boolean;
  /** Path parameters (in order) and query parameters, as objects or component refs. */
  parameters?: readonly JsonObject[];
  /** Request body: a component schema name (JSON), or a full requestBody object. */
  body?: string | JsonObject;
  bodyRequired?: boolean;
  idempotencyKey?: 'required' | 'optional';
  ifMatch?: boolean;
  success: readonly SuccessSpec[];
  /** Statuses of part 4 for this endpoint beyond those the builder adds. */
  errors?: readonly ErrorStatus[];
  /** A response of its own for an error status (instead of the shared problem response). */
  errorOverrides?: Partial<Record<ErrorStatus, JsonObject>>;
  /** Gap id when the operation (or its shape) is a choice made where the contract says "not shown". */
  gap?: string;
  /** The contract group is marked "not yet available" (part 1). */
  notYetAvailable?: boolean;
  description?: string;
}

function successResponse(spec: SuccessSpec): JsonObject {
  const headers: Record<string, JsonObject> = { ...commonHeaders() };
  if (spec.etag === true) headers['ETag'] = headerRef('ETag');
  return {
    description: spec.description,
    headers,
    ...(spec.schema === undefined
      ? {}
      : { content: { 'application/json': { schema: schemaRef(spec.schema) } } }),
  };
}

/**
 * A problem response whose body may also be `schema` (POST /supplier/products/batch answers the batch results
 * inside the problem when every item failed; an invalid request is a plain problem).
 */
export function problemWith(description: string, schema: string): JsonObject {
  return {
    description,
    headers: commonHeaders(),
    content: {
      'application/problem+json': {
        schema: { anyOf: [{ allOf: [schemaRef('Problem'), schemaRef(schema)] }, schemaRef('Problem')] },
      },
    },
  };
}

function requestBody(spec: OperationSpec): JsonObject | undefined {
  if (spec.body === undefined) return undefined;
  if (typeof spec.body !== 'string') return spec.body;
  return {
    required: spec.bodyRequired ?? true,
    content: { 'application/json': { schema: schemaRef(spec.body) } },
  };
}

function errorStatuses(spec: OperationSpec): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>(spec.errors ?? []);
  if (!spec.anonymous) for (const status of [401, 403] as const) statuses.add(status);
  statuses.add(429);
  statuses.add('5XX');
  const hasQuery = (spec.parameters ?? []).some((p) => p['in'] === 'query' || '$ref' in p);
  // A malformed token request is 400 validation_error (part 4.1), never 422.
  if ((spec.body !== undefined || hasQuery) && !spec.anonymous) statuses.add(422);
  if (spec.body !== undefined) statuses.add(413);
  if (spec.method === 'post' && !spec.anonymous) statuses.add(409);
  return [...statuses];
}

export function security(spec: OperationSpec): JsonObject[] {
  if (spec.anonymous) return [];
  const scopes = spec.scope === undefined ? [] : [spec.scope];
  return [{ ApiKey: [] }, { ClientCredentials: scopes }];
}

function describe(spec: OperationSpec): string {
  const parts = [spec.description];
  if (spec.scope !== undefined) parts.push(`Scope: \`${spec.scope}\`.`);
  if (spec.plan !== undefined) parts.push(`Plan ${spec.plan} or higher.`);
  if (spec.notYetAvailable === true) parts.push('The contract marks this group as not yet available.');
  return parts.filter((part): part is string => part !== undefined).join(' ');
}

export function operationObject(spec: OperationSpec): JsonObject {
  const parameters: JsonObject[] = [...(spec.parameters ?? [])];
  const idempotency =
    spec.idempotencyKey ?? (spec.method === 'post' && !spec.anonymous ? 'optional' : undefined);
  if (idempotency === 'required') parameters.push(paramRef('IdempotencyKeyRequired'));
  if (idempotency === 'optional') parameters.push(paramRef('IdempotencyKey'));
  if (spec.ifMatch === true) parameters.push(paramRef('IfMatch'));
  const responses: Record<string, JsonObject> = {};
  for (const success of spec.success) responses[String(success.status)] = successResponse(success);
  for (const status of errorStatuses(spec)) {
    responses[String(status)] = spec.errorOverrides?.[status] ?? responseRef(ERROR_RESPONSES[status][0]);
  }
  const body = requestBody(spec);
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: describe(spec),
    tags: [spec.tag],
    security: security(spec),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined ? {} : { requestBody: body }),
    responses,
    ...(spec.scope === undefined ? {} : { 'x-required-scope': spec.scope }),
    ...(spec.plan === undefined ? {} : { 'x-minimum-plan': spec.plan }),
    ...(spec.gap === undefined ? {} : { 'x-contract-gap': spec.gap }),
    ...(spec.notYetAvailable === true ? { 'x-not-yet-available': true } : {}),
  };
}
