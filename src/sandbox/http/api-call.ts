/** The two kinds of /v2 call: the token endpoint, and a routed endpoint with its checks, handler and idempotency. */
import type { Clock } from '../../shared/clock.js';
import { ProblemError } from './types.js';
import type { Caller, HttpMethod, RaisedEvent, RequestContext, RouteDef } from './types.js';
import { notFound } from './problem.js';
import { readBody, parseBody } from './body.js';
import type { ParsedBody } from './body.js';
import { matchRoute } from './router.js';
import { serializeProblem, serializeReply } from './respond.js';
import type { SerializedReply } from './respond.js';
import { checkAccess } from './admission.js';
import type { ApiDeps, ApiRequest } from './api-request.js';
import type { PlatformContext } from '../platform/context.js';
import { authenticate } from '../platform/auth.js';
import { issueToken, resolveTokenClient } from '../platform/account.js';
import { fingerprintOf, readIdempotencyKey } from '../platform/idempotency.js';
import type { ApiClient } from '../platform/state.js';

/** Counts the request against a client's rate limit once the client is known. */
export type Admit = (client: ApiClient) => void;

/** POST /v2/oauth/token: the client is known from the body, so the body is read first. */
export async function tokenReply(deps: ApiDeps, request: ApiRequest, admit: Admit): Promise<SerializedReply> {
  const raw = await readBody(request.req);
  request.trace.requestBytes = raw.length;
  const { body } = await parseBody(raw, request.headers['content-type'], true);
  const found = resolveTokenClient(deps.ctx, body, request.ip);
  admit(found);
  return serializeReply(issueToken(deps.ctx, found, body));
}

/** Every other endpoint, checked in the documented order: credential, rate limit, path, access, body. */
export async function routedReply(
  deps: ApiDeps,
  request: ApiRequest,
  admit: Admit,
): Promise<SerializedReply> {
  const { ctx } = deps;
  const { method, path, headers, trace } = request;
  const auth = authenticate(
    headers['authorization'],
    ctx.state.clients,
    ctx.state.jwtSecret,
    ctx.clock.now(),
    request.ip,
  );
  admit(auth.client);
  const match = matchRoute(deps.routes(), method, path);
  if (!match) throw notFound(`No endpoint ${method} /v2${path}.`);
  const route = match.route;
  checkAccess(route, auth.caller);
  trace.scopeUsed = route.scope ?? null;
  const raw = await readBody(request.req);
  trace.requestBytes = raw.length;
  const parsed = await parseBody(raw, headers['content-type']);
  const raised: RaisedEvent[] = [];
  const context = requestContext(request, match.params, parsed, auth.caller, ctx.clock, raised);
  const execute = () => runRoute(ctx, route, context, raised);
  const mode = route.idempotency ?? (method === 'POST' ? 'optional' : undefined);
  const key = mode === undefined ? null : readIdempotencyKey(headers, mode);
  if (key === null) return execute();
  const outcome = await deps.idempotency.run(
    auth.caller.accountId,
    key,
    fingerprintOf(method, path, raw),
    execute,
  );
  return outcome.replayed
    ? { ...outcome.reply, headers: { ...outcome.reply.headers, 'Idempotent-Replayed': 'true' } }
    : outcome.reply;
}

function requestContext(
  request: ApiRequest,
  params: Record<string, string>,
  parsed: ParsedBody,
  caller: Caller,
  clock: Clock,
  raised: RaisedEvent[],
): RequestContext {
  return {
    method: request.method as HttpMethod,
    path: request.path,
    params,
    query: request.url.searchParams,
    body: parsed.body,
    headers: request.headers,
    caller,
    clock,
    requestId: request.requestId,
    raise: (event) => raised.push(event),
    ...(parsed.form ? { form: parsed.form } : {}),
  };
}

/** The handler's reply or problem; its events are raised only when it succeeds, any write is saved. */
async function runRoute(
  ctx: PlatformContext,
  route: RouteDef,
  context: RequestContext,
  raised: readonly RaisedEvent[],
): Promise<SerializedReply> {
  let result: SerializedReply;
  try {
    result = serializeReply(await route.handle(context));
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    result = serializeProblem(error, context.requestId, `/v2${context.path}`);
  }
  if (result.status < 400) for (const event of raised) ctx.raise(event);
  if (context.method !== 'GET') ctx.markDirty();
  return result;
}
