/**
 * The /v2 request pipeline: faults, authentication, rate limit, routing, account type, plan and scope checks,
 * body limits and parsing, idempotency, the handler, events, response headers and the audit record.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from './types.js';
import type { Caller, HttpMethod, PlanName, RaisedEvent, RequestContext, RouteDef } from './types.js';
import { UPGRADE_URL, notFound } from './problem.js';
import { readBody, parseBody } from './body.js';
import { matchRoute } from './router.js';
import type { CompiledRoute } from './router.js';
import { internalError, serializeProblem, serializeReply, writeReply } from './respond.js';
import type { SerializedReply } from './respond.js';
import type { PlatformContext } from '../platform/context.js';
import { authenticate } from '../platform/auth.js';
import { issueToken, resolveTokenClient } from '../platform/account.js';
import { limitFor } from '../platform/rate-limit.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import { fingerprintOf, readIdempotencyKey } from '../platform/idempotency.js';
import type { IdempotencyStore } from '../platform/idempotency.js';
import { recordAudit, redactQuery } from '../platform/audit.js';
import type { ApiClient } from '../platform/state.js';
import type { FaultInjector } from '../control/faults.js';

export interface ApiDeps {
  ctx: PlatformContext;
  routes: () => readonly CompiledRoute<RouteDef>[];
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  faults: FaultInjector;
  onError(error: unknown): void;
}

const PLAN_RANK: Record<PlanName, number> = { supplier: 0, Basic: 1, Pro: 2, Enterprise: 3 };

function flatHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers))
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function rateLimited(retryAfter: number, headers: Record<string, string>): ProblemError {
  return new ProblemError(429, 'rate_limited', `Too many requests; retry after ${retryAfter} s.`, {
    headers: { ...headers, 'Retry-After': String(retryAfter) },
  });
}

function checkAccess(route: RouteDef, caller: Caller): void {
  if (route.accountType !== undefined && route.accountType !== caller.accountType) {
    throw new ProblemError(403, 'scope_missing', `This endpoint is for ${route.accountType} accounts.`);
  }
  if (route.minPlan !== undefined && PLAN_RANK[caller.plan] < PLAN_RANK[route.minPlan]) {
    throw new ProblemError(403, 'plan_required', `This endpoint needs the ${route.minPlan} plan or higher.`, {
      upgrade_url: UPGRADE_URL,
    });
  }
  if (route.scope !== undefined && !caller.scopes.includes(route.scope)) {
    throw new ProblemError(403, 'scope_missing', `This endpoint needs the scope ${route.scope}.`);
  }
}

export async function handleApi(
  deps: ApiDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  requestId: string,
  ip: string,
): Promise<void> {
  const { ctx } = deps;
  const started = performance.now();
  const method = (req.method ?? 'GET').toUpperCase();
  const path = url.pathname.slice('/v2'.length) || '/';
  const headers = flatHeaders(req);
  let rateHeaders: Record<string, string> = {};
  const seen: { client: ApiClient | null } = { client: null };
  let scopeUsed: string | null = null;
  let requestBytes = 0;

  const fault = deps.faults.nextRequest();
  if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  if (fault.kind === 'reset') {
    req.socket.destroy();
    return;
  }

  const limitClient = (found: ApiClient) => {
    seen.client = found;
    const limit = limitFor(found.plan, ctx.rateLimitOverrides);
    if (fault.kind === 'rate_limited') {
      rateHeaders = {
        'RateLimit-Limit': String(limit.per_minute),
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '1',
      };
      throw rateLimited(1, rateHeaders);
    }
    const decision = deps.limiter.take(found.id, limit);
    rateHeaders = decision.headers;
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds, decision.headers);
  };

  let reply: SerializedReply;
  try {
    if (fault.kind === 'error') throw internalError();
    if (method === 'POST' && path === '/oauth/token') {
      const raw = await readBody(req);
      requestBytes = raw.length;
      const { body } = await parseBody(raw, headers['content-type'], true);
      const found = resolveTokenClient(ctx, body, ip);
      limitClient(found);
      reply = serializeReply(issueToken(ctx, found, body));
    } else {
      const auth = authenticate(
        headers['authorization'],
        ctx.state.clients,
        ctx.state.jwtSecret,
        ctx.clock.now(),
        ip,
      );
      limitClient(auth.client);
      const match = matchRoute(deps.routes(), method, path);
      if (!match) throw notFound(`No endpoint ${method} /v2${path}.`);
      const route = match.route;
      checkAccess(route, auth.caller);
      scopeUsed = route.scope ?? null;
      const raw = await readBody(req);
      requestBytes = raw.length;
      const parsed = await parseBody(raw, headers['content-type']);
      const raised: RaisedEvent[] = [];
      const context: RequestContext = {
        method: method as HttpMethod,
        path,
        params: match.params,
        query: url.searchParams,
        body: parsed.body,
        headers,
        caller: auth.caller,
        clock: ctx.clock,
        requestId,
        raise: (event) => raised.push(event),
        ...(parsed.form ? { form: parsed.form } : {}),
      };
      const execute = async (): Promise<SerializedReply> => {
        let result: SerializedReply;
        try {
          result = serializeReply(await route.handle(context));
        } catch (error) {
          if (!(error instanceof ProblemError)) throw error;
          result = serializeProblem(error, requestId, `/v2${path}`);
        }
        if (result.status < 400) for (const event of raised) ctx.raise(event);
        if (method !== 'GET') ctx.markDirty();
        return result;
      };
      const mode = route.idempotency ?? (method === 'POST' ? 'optional' : undefined);
      const key = mode === undefined ? null : readIdempotencyKey(headers, mode);
      if (key === null) {
        reply = await execute();
      } else {
        const outcome = await deps.idempotency.run(
          auth.caller.accountId,
          key,
          fingerprintOf(method, path, raw),
          execute,
        );
        reply = outcome.replayed
          ? { ...outcome.reply, headers: { ...outcome.reply.headers, 'Idempotent-Replayed': 'true' } }
          : outcome.reply;
      }
    }
  } catch (error) {
    const problem = error instanceof ProblemError ? error : internalError();
    if (!(error instanceof ProblemError)) deps.onError(error);
    reply = serializeProblem(problem, requestId, `/v2${path}`);
    if (problem.status === 413) reply.headers['Connection'] = 'close';
  }

  const responseBytes = writeReply(res, reply, { ...rateHeaders, 'X-Request-Id': requestId });
  const known = seen.client;
  recordAudit(ctx, {
    request_id: requestId,
    timestamp: new Date(ctx.clock.now()).toISOString(),
    environment: 'sandbox',
    account_id: known?.accountId ?? null,
    client_id: known?.id ?? null,
    client_name: known?.name ?? null,
    key_id: known?.keyId ?? null,
    method,
    path: `/v2${path}`,
    query: redactQuery(url.searchParams),
    status: reply.status,
    error_code: reply.status >= 400 ? errorCodeOf(reply.body) : null,
    latency_ms: Math.round(performance.now() - started),
    ip,
    user_agent: headers['user-agent'] ?? null,
    request_bytes: requestBytes,
    response_bytes: responseBytes,
    scope_used: scopeUsed,
  });
}

function errorCodeOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : null;
  } catch {
    return null;
  }
}
