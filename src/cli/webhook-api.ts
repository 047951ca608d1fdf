/** Adapts the API client to the structural WebhookApi the webhook commands use. */
import type { ApiClient } from '../client/index.js';
import type { WebhookApi, WebhookDelivery, WebhookEndpoint } from '../webhooks/index.js';

type ClientEndpoint = Awaited<ReturnType<ApiClient['webhooks']['get']>>;
type ClientDelivery = Awaited<ReturnType<ApiClient['webhooks']['test']>>;
type CreateBody = Parameters<ApiClient['webhooks']['create']>[0];
type PatchBody = Parameters<ApiClient['webhooks']['update']>[1];

function endpointOf(e: ClientEndpoint): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    events: e.events.map(String),
    status: String(e.status),
    ...(e.description === undefined ? {} : { description: e.description }),
    ...(e.secret === undefined ? {} : { secret: e.secret }),
  };
}

function deliveryOf(d: ClientDelivery): WebhookDelivery {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: String(d.event_type),
    attempt: d.attempt,
    status: String(d.status),
    ...(d.response_status === undefined ? {} : { response_status: d.response_status }),
    ...(d.error === undefined ? {} : { error: d.error }),
    ...(d.attempted_at === undefined ? {} : { attempted_at: d.attempted_at }),
  };
}

export function webhookApiOf(api: ApiClient): WebhookApi {
  return {
    listWebhooks: async () => (await api.webhooks.list()).items.map(endpointOf),
    // Event names are checked by the API (422 for unknown ones), so they pass through as given.
    createWebhook: async (body) => endpointOf(await api.webhooks.create(body as unknown as CreateBody)),
    updateWebhook: async (id, body) =>
      endpointOf(await api.webhooks.update(id, body as unknown as PatchBody)),
    testWebhook: async (id) => deliveryOf(await api.webhooks.test(id)),
    listDeliveries: async function* (id, query) {
      for await (const delivery of api.webhooks.deliveries(id, query ?? {}).items())
        yield deliveryOf(delivery);
    },
    redeliver: (id, deliveryId) => api.webhooks.redeliver(id, deliveryId),
  };
}
