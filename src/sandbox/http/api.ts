/**
 * The /v2 request pipeline: faults, authentication, rate limit, routing, account type, plan and scope checks,
 * body limits and parsing, idempotency, the handler, events, response headers and the audit record.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from './types.js';
import { internalError, serializeProblem, writeReply } from './respond.js';
import type { SerializedReply } from './respond.js';
import { admitClient } from './admission.js';
import { routedReply, tokenReply } from './api-call.js';
import { auditRequest } from './api-audit.js';
import { CLIENT_CLOSED_REQUEST } from './body.js';
import type { ApiDeps, ApiRequest, RequestTrace } from './api-request.js';
import type { ApiClient } from '../platform/state.js';

function flatHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers))
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

export async function handleApi(
  deps: ApiDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  requestId: string,
  ip: string,
): Promise<void> {
  const started = performance.now();
  const method = (req.method ?? 'GET').toUpperCase();
  const path = url.pathname.slice('/v2'.length) || '/';
  const trace: RequestTrace = { client: null, rateHeaders: {}, scopeUsed: null, requestBytes: 0 };
  const request: ApiRequest = { req, url, method, path, headers: flatHeaders(req), requestId, ip, trace };

  const fault = deps.faults.nextRequest();
  if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  if (fault.kind === 'reset') {
    req.socket.destroy();
    return;
  }

  let reply: SerializedReply;
  try {
    if (fault.kind === 'error') throw internalError();
    const admit = (client: ApiClient) => admitClient(deps, fault, trace, client);
    reply =
      method === 'POST' && path === '/oauth/token'
        ? await tokenReply(deps, request, admit)
        : await routedReply(deps, request, admit);
  } catch (error) {
    reply = problemReply(deps, error, request);
  }
  // Nobody is left to answer, and the request never arrived whole: no reply and no audit record.
  if (reply.status === CLIENT_CLOSED_REQUEST) return;
  const responseBytes = writeReply(res, reply, { ...trace.rateHeaders, 'X-Request-Id': requestId });
  auditRequest(deps.ctx, request, reply, { started, responseBytes });
}

/** A problem thrown by any step, or a 500 for anything else (reported); 413 closes the connection. */
function problemReply(deps: ApiDeps, error: unknown, request: ApiRequest): SerializedReply {
  const problem = error instanceof ProblemError ? error : internalError();
  if (!(error instanceof ProblemError)) deps.onError(error);
  const reply = serializeProblem(problem, request.requestId, `/v2${request.path}`);
  if (problem.status === 413) reply.headers['Connection'] = 'close';
  return reply;
}
