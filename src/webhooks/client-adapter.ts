import type { WebhooksApi } from '../client/areas/webhooks.js';
import { idempotencyKey } from '../shared/idempotency-key.js';
import type { WebhookApi, WebhookDelivery, WebhookEndpoint } from './api.js';

/** Adapts the typed API client's `webhooks` area to what the webhook commands use. */
export function webhookApiFromClient(webhooks: WebhooksApi): WebhookApi {
  const endpoint = (value: {
    id: string;
    url: string;
    events: readonly string[];
    status: string;
    description?: string | null | undefined;
    secret?: string | undefined;
  }): WebhookEndpoint => ({
    id: value.id,
    url: value.url,
    events: [...value.events],
    status: value.status,
    ...(value.description === undefined ? {} : { description: value.description }),
    ...(value.secret === undefined ? {} : { secret: value.secret }),
  });
  return {
    listWebhooks: async () => (await webhooks.list()).items.map(endpoint),
    createWebhook: async (body, options) =>
      endpoint(
        await webhooks.create(
          {
            url: body.url,
            events: [...body.events],
            ...(body.description === undefined ? {} : { description: body.description }),
          },
          options?.idempotencyKey === undefined ? undefined : { idempotencyKey: options.idempotencyKey },
        ),
      ),
    updateWebhook: async (id, body) =>
      endpoint(
        await webhooks.update(id, {
          ...(body.url === undefined ? {} : { url: body.url }),
          ...(body.events === undefined ? {} : { events: [...body.events] }),
          ...(body.description === undefined ? {} : { description: body.description }),
          ...(body.status === undefined ? {} : { status: body.status }),
        }),
      ),
    testWebhook: async (id, options) => delivery(await webhooks.test(id, options ?? {})),
    listDeliveries: (id, query) =>
      mapItems(webhooks.deliveries(id, query?.status ? { status: query.status } : {})),
    redeliver: (id, deliveryId) =>
      webhooks.redeliver(id, deliveryId, { idempotencyKey: redeliveryKey(id, deliveryId) }),
  };
}

/**
 * The Idempotency-Key of a redelivery request: one per failed delivery attempt. A redelivery queues a new attempt
 * with an id of its own, so asking again for the same failed attempt (a command repeated, or re-run by the next
 * leader) is replayed by the API instead of queueing a second attempt.
 */
export function redeliveryKey(webhookId: string, deliveryId: string): string {
  return idempotencyKey('webhook-redeliver', webhookId, deliveryId);
}

function delivery(value: {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: string;
  response_status?: number | null | undefined;
  response_snippet?: string | null | undefined;
  error?: string | null | undefined;
  attempted_at?: string | undefined;
}): WebhookDelivery {
  return {
    id: value.id,
    event_id: value.event_id,
    event_type: value.event_type,
    attempt: value.attempt,
    status: value.status,
    ...(value.response_status === undefined ? {} : { response_status: value.response_status }),
    ...(value.response_snippet === undefined ? {} : { response_snippet: value.response_snippet }),
    ...(value.error === undefined ? {} : { error: value.error }),
    ...(value.attempted_at === undefined ? {} : { attempted_at: value.attempted_at }),
  };
}

async function* mapItems(
  list: ReturnType<WebhooksApi['deliveries']>,
): AsyncGenerator<WebhookDelivery, void, undefined> {
  for await (const item of list.items()) yield delivery(item);
}
