/** What every endpoint module needs: the transport and the drift counter, plus helpers to parse responses. */
import { ApiError } from './errors.js';
import { parseItem, type DriftCounter, type ResourceParser } from './parsing.js';
import type { RawResponse, RequestSpec, Transport } from './transport.js';
import { buildPath } from './url.js';

/** What the endpoint modules send requests through: the transport, or a view of it that refuses writes. */
export type RequestSender = Pick<Transport, 'request'>;

export interface ClientContext {
  readonly transport: RequestSender;
  readonly drift: DriftCounter;
}

/** A resource with the response metadata some callers need. */
export interface WithMeta<T> {
  value: T;
  status: number;
  requestId: string | null;
  etag: string | null;
}

export function invalidResponse(spec: RequestSpec, response: RawResponse, reason: string): ApiError {
  const path = buildPath(spec.route, spec.params ?? {});
  return new ApiError({
    status: response.status,
    code: 'invalid_response',
    method: spec.method,
    path,
    requestId: response.requestId,
    body: response.body,
    message: `${spec.method} ${path} returned an unexpected body: ${reason}`,
  });
}

/** A single resource; one that fails its schema is an invalid_response error (its raw body is on the error). */
export async function requestResourceWithMeta<T>(
  ctx: ClientContext,
  spec: RequestSpec,
  parser: ResourceParser<T>,
): Promise<WithMeta<T>> {
  const response = await ctx.transport.request(spec);
  const parsed = parseItem(parser, response.body, 0, ctx.drift);
  if ('quarantined' in parsed) throw invalidResponse(spec, response, parsed.quarantined.reason);
  return {
    value: parsed.value,
    status: response.status,
    requestId: response.requestId,
    etag: response.header('etag') ?? null,
  };
}

export async function requestResource<T>(
  ctx: ClientContext,
  spec: RequestSpec,
  parser: ResourceParser<T>,
): Promise<T> {
  return (await requestResourceWithMeta(ctx, spec, parser)).value;
}

/** For 202/204 answers without a body worth reading. */
export async function requestNoContent(ctx: ClientContext, spec: RequestSpec): Promise<void> {
  await ctx.transport.request(spec);
}
