/** Part 4.16: webhook endpoint CRUD, delivery listing, redelivery and the test ping. */
import type { RouteDef, RequestContext } from '../http/types.js';
import { notFound, validationError } from '../http/problem.js';
import { paginate } from '../http/paging.js';
import type { PlatformContext } from '../platform/context.js';
import { isoNow } from '../platform/context.js';
import { newId } from '../platform/ids.js';
import type { DeliveryAttempt, WebhookEndpoint } from '../platform/state.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { newWebhookSecret } from './signing.js';

/** Gap G23. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;
const SCOPE = 'webhooks:manage';
const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'];

type Item = { field: string; code: string; message?: string };

export function presentEndpoint(endpoint: WebhookEndpoint, withSecret = false): Record<string, unknown> {
  const { accountId: _account, secret, failingSinceMs: _since, ...visible } = endpoint;
  return withSecret ? { ...visible, secret } : visible;
}

export function presentDelivery(delivery: DeliveryAttempt): Record<string, unknown> {
  const {
    dueAtMs: _due,
    scheduleStartMs: _start,
    created_at: _created,
    webhook_id: _webhook,
    ...visible
  } = delivery;
  return visible;
}

function urlProblems(ctx: PlatformContext, raw: unknown, items: Item[]): void {
  if (typeof raw !== 'string' || raw === '') {
    items.push({ field: 'url', code: 'required', message: 'url is required.' });
    return;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    items.push({ field: 'url', code: 'invalid_format', message: 'url must be an absolute URL.' });
    return;
  }
  const localHttp = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol === 'https:' || (ctx.allowHttpWebhooks && localHttp)) return;
  items.push({ field: 'url', code: 'invalid_format', message: 'url must start with https://.' });
}

function eventsProblems(raw: unknown, items: Item[]): void {
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((e) => typeof e === 'string' && e !== '')) {
    items.push({
      field: 'events',
      code: 'required',
      message: 'events must be a non-empty array of event types.',
    });
  }
}

function descriptionProblems(raw: unknown, items: Item[]): void {
  if (raw === undefined || raw === null) return;
  if (typeof raw !== 'string') items.push({ field: 'description', code: 'invalid_format' });
  else if (raw.length > 200)
    items.push({ field: 'description', code: 'too_long', message: 'At most 200 characters.' });
}

/** Like every request body, webhook bodies refuse fields they do not define (422 unsupported_value). */
function unknownFieldProblems(body: Record<string, unknown>, known: readonly string[], items: Item[]): void {
  for (const field of Object.keys(body)) {
    if (!known.includes(field)) items.push({ field, code: 'unsupported_value', message: 'unknown field' });
  }
}

function asRecord(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw validationError([{ field: 'body', code: 'invalid_format' }]);
  return body as Record<string, unknown>;
}

export function webhookRoutes(ctx: PlatformContext, dispatcher: WebhookDispatcher): RouteDef[] {
  const owned = (req: RequestContext): WebhookEndpoint => {
    const endpoint = ctx.state.webhooks.get(req.params['webhook_id'] ?? '');
    if (!endpoint || endpoint.accountId !== req.caller.accountId) throw notFound('No such webhook endpoint.');
    return endpoint;
  };
  const base = { scope: SCOPE, group: 'webhooks' } as const;
  return [
    {
      ...base,
      method: 'GET',
      path: '/webhooks',
      handle: (req) => ({
        status: 200,
        body: {
          data: [...ctx.state.webhooks.values()]
            .filter((endpoint) => endpoint.accountId === req.caller.accountId)
            .map((endpoint) => presentEndpoint(endpoint)),
        },
      }),
    },
    {
      ...base,
      method: 'POST',
      path: '/webhooks',
      idempotency: 'optional',
      handle(req) {
        const body = asRecord(req.body);
        const items: Item[] = [];
        unknownFieldProblems(body, ['url', 'events', 'description'], items);
        urlProblems(ctx, body['url'], items);
        eventsProblems(body['events'], items);
        descriptionProblems(body['description'], items);
        if (items.length > 0) throw validationError(items);
        const count = [...ctx.state.webhooks.values()].filter(
          (e) => e.accountId === req.caller.accountId,
        ).length;
        if (count >= MAX_ENDPOINTS_PER_ACCOUNT) {
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
          accountId: req.caller.accountId,
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
        return { status: 201, body: presentEndpoint(endpoint, true) };
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/webhooks/:webhook_id',
      handle: (req) => ({ status: 200, body: presentEndpoint(owned(req)) }),
    },
    {
      ...base,
      method: 'PATCH',
      path: '/webhooks/:webhook_id',
      handle(req) {
        const endpoint = owned(req);
        const body = asRecord(req.body);
        const items: Item[] = [];
        unknownFieldProblems(body, ['url', 'events', 'status', 'description'], items);
        if ('url' in body) urlProblems(ctx, body['url'], items);
        if ('events' in body) eventsProblems(body['events'], items);
        descriptionProblems(body['description'], items);
        if ('status' in body && body['status'] !== 'active' && body['status'] !== 'disabled') {
          items.push({
            field: 'status',
            code: 'invalid_enum',
            message: 'status must be active or disabled.',
          });
        }
        if (items.length > 0) throw validationError(items);
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
        return { status: 200, body: presentEndpoint(endpoint) };
      },
    },
    {
      ...base,
      method: 'DELETE',
      path: '/webhooks/:webhook_id',
      handle(req) {
        const endpoint = owned(req);
        ctx.state.webhooks.delete(endpoint.id);
        for (const delivery of [...ctx.state.deliveries.values()]) {
          if (delivery.webhook_id === endpoint.id) ctx.state.deliveries.delete(delivery.id);
        }
        ctx.markDirty();
        return { status: 204 };
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/webhooks/:webhook_id/test',
      async handle(req) {
        const attempt = await dispatcher.ping(owned(req));
        return { status: 200, body: presentDelivery(attempt) };
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/webhooks/:webhook_id/deliveries',
      handle(req) {
        const endpoint = owned(req);
        const status = req.query.get('status');
        if (status !== null && !DELIVERY_STATUSES.includes(status)) {
          throw validationError([
            { field: 'status', code: 'invalid_enum', message: DELIVERY_STATUSES.join(', ') },
          ]);
        }
        const rows = [...ctx.state.deliveries.values()].filter(
          (d) => d.webhook_id === endpoint.id && (status === null || d.status === status),
        );
        const page = paginate(rows, req.query, (d) => ({ at: d.created_at, id: d.id }));
        return { status: 200, body: { ...page, data: page.data.map(presentDelivery) } };
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
      handle(req) {
        const endpoint = owned(req);
        const delivery = ctx.state.deliveries.get(req.params['delivery_id'] ?? '');
        if (!delivery || delivery.webhook_id !== endpoint.id) throw notFound('No such delivery.');
        dispatcher.redeliver(delivery);
        return { status: 202 };
      },
    },
  ];
}
