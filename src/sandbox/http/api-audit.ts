/** The audit record of a /v2 request, written after its response. */
import type { SerializedReply } from './respond.js';
import type { ApiRequest } from './api-request.js';
import type { PlatformContext } from '../platform/context.js';
import { recordAudit, redactQuery } from '../platform/audit.js';

export function auditRequest(
  ctx: PlatformContext,
  request: ApiRequest,
  reply: SerializedReply,
  measured: { started: number; responseBytes: number },
): void {
  const known = request.trace.client;
  recordAudit(ctx, {
    request_id: request.requestId,
    timestamp: new Date(ctx.clock.now()).toISOString(),
    environment: 'sandbox',
    account_id: known?.accountId ?? null,
    client_id: known?.id ?? null,
    client_name: known?.name ?? null,
    key_id: known?.keyId ?? null,
    method: request.method,
    path: `/v2${request.path}`,
    query: redactQuery(request.url.searchParams),
    status: reply.status,
    error_code: reply.status >= 400 ? errorCodeOf(reply.body) : null,
    latency_ms: Math.round(performance.now() - measured.started),
    ip: request.ip,
    user_agent: request.headers['user-agent'] ?? null,
    request_bytes: request.trace.requestBytes,
    response_bytes: measured.responseBytes,
    scope_used: request.trace.scopeUsed,
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
