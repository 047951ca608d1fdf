/** Who gets through: the rate limit a client's request counts against, then the route's account type, plan, scope. */
import { ProblemError } from './types.js';
import type { Caller, PlanName, RouteDef } from './types.js';
import { UPGRADE_URL } from './problem.js';
import type { ApiDeps, RequestTrace } from './api-request.js';
import { limitFor } from '../platform/rate-limit.js';
import type { ApiClient } from '../platform/state.js';
import type { RequestFault } from '../harness/faults.js';

const PLAN_RANK: Record<PlanName, number> = { supplier: 0, Basic: 1, Pro: 2, Enterprise: 3 };

function rateLimited(retryAfter: number, headers: Record<string, string>): ProblemError {
  return new ProblemError(429, 'rate_limited', `Too many requests; retry after ${retryAfter} s.`, {
    headers: { ...headers, 'Retry-After': String(retryAfter) },
  });
}

/** Counts the request against the client's limit (an injected fault answers 429 at once); 429 over the limit. */
export function admitClient(
  deps: Pick<ApiDeps, 'ctx' | 'limiter'>,
  fault: RequestFault,
  trace: RequestTrace,
  client: ApiClient,
): void {
  trace.client = client;
  const limit = limitFor(client.plan, deps.ctx.rateLimitOverrides);
  if (fault.kind === 'rate_limited') {
    trace.rateHeaders = {
      'RateLimit-Limit': String(limit.per_minute),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1',
    };
    throw rateLimited(1, trace.rateHeaders);
  }
  const decision = deps.limiter.take(client.id, limit);
  trace.rateHeaders = decision.headers;
  if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds, decision.headers);
}

export function checkAccess(route: RouteDef, caller: Caller): void {
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
