/** An account's webhook endpoints: created (gap G23: at most ten), changed, deleted with their deliveries. */
import type { RequestContext } from '../http/types.js';
import { notFound, validationError } from '../http/problem.js';
import type { PlatformContext } from '../platform/context.js';
import { isoNow } from '../platform/context.js';
import { newId } from '../platform/ids.js';
import type { WebhookEndpoint } from '../platform/state.js';
import { asRecord, checkCreateBody, checkPatchBody } from './endpoint-body.js';
import { newWebhookSecret } from './signing.js';

/** Gap G23. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;

export function presentEndpoint(endpoint: WebhookEndpoint, withSecret = false): Record<string, unknown> {
  const { accountId: _account, secret, failingSinceMs: _since, ...visible } = endpoint;
  return withSecret ? { ...visible, secret } : visible;
}

/** The endpoint of the path's webhook_id; 404 when it is another account's. */
export function ownedEndpoint(ctx: PlatformContext, req: RequestContext): WebhookEndpoint {
  const endpoint = ctx.state.webhooks.get(req.params['webhook_id'] ?? '');
  if (!endpoint || endpoint.accountId !== req.caller.accountId) throw notFound('No such webhook endpoint.');
  return endpoint;
}

export function accountEndpoints(ctx: PlatformContext, accountId: string): WebhookEndpoint[] {
  return [...ctx.state.webhooks.values()].filter((endpoint) => endpoint.accountId === accountId);
}

export function createEndpoint(ctx: PlatformContext, accountId: string, rawBody: unknown): WebhookEndpoint {
  const body = asRecord(rawBody);
  checkCreateBody(ctx, body);
  if (accountEndpoints(ctx, accountId).length >= MAX_ENDPOINTS_PER_ACCOUNT) {
    throw validationError([
      {
        field: 'url',
        code: 'limit_reached',
        message: `At most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints.`,
      },
    ]);
  }
  const endpoint: WebhookEndpoint = {
    id: newId('wh'),
    accountId,
    url: body['url'] as string,
    events: body['events'] as string[],
    status: 'active',
    description: typeof body['description'] === 'string' ? body['description'] : null,
    last_delivery_at: null,
    consecutive_failures: 0,
    created_at: isoNow(ctx),
    secret: newWebhookSecret(),
    failingSinceMs: null,
  };
  ctx.state.webhooks.set(endpoint.id, endpoint);
  ctx.markDirty();
  return endpoint;
}

/** Applies the fields the body gives; a new status starts the failure window afresh. */
export function updateEndpoint(ctx: PlatformContext, endpoint: WebhookEndpoint, rawBody: unknown): void {
  const body = asRecord(rawBody);
  checkPatchBody(ctx, body);
  if (typeof body['url'] === 'string') endpoint.url = body['url'];
  if (Array.isArray(body['events'])) endpoint.events = body['events'] as string[];
  if ('description' in body)
    endpoint.description = typeof body['description'] === 'string' ? body['description'] : null;
  if (body['status'] === 'active' || body['status'] === 'disabled') {
    endpoint.status = body['status'];
    endpoint.failingSinceMs = null;
    if (body['status'] === 'active') endpoint.consecutive_failures = 0;
  }
  ctx.markDirty();
  ctx.kick();
}

export function deleteEndpoint(ctx: PlatformContext, endpoint: WebhookEndpoint): void {
  ctx.state.webhooks.delete(endpoint.id);
  for (const delivery of [...ctx.state.deliveries.values()]) {
    if (delivery.webhook_id === endpoint.id) ctx.state.deliveries.delete(delivery.id);
  }
  ctx.markDirty();
}
