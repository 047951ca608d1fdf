/** Webhook endpoints and their delivery attempts. */
import type { WebhookDelivery, WebhookEndpoint } from '../../contract/index.js';
import { requestNoContent, requestResource, type ClientContext } from '../context.js';
import { paginate, requestList, type ListResult, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf, listSpec, type ListOptions } from './common.js';
import type { CreateWebhookBody, PatchWebhookBody } from '../request-types.js';

const ONE = '/webhooks/{webhook_id}';

const one = (webhookId: string) => ({ webhook_id: webhookId });

/** The endpoints themselves. */
function endpointCalls(ctx: ClientContext) {
  return {
    list(options?: CallOptions): Promise<ListResult<WebhookEndpoint>> {
      return requestList(
        ctx,
        { method: 'GET', route: '/webhooks', ...callOf(options) },
        parsers.webhookEndpoint,
      );
    },
    /** The response carries `secret`, shown only once: store it before anything else. */
    create(body: CreateWebhookBody, options?: CallOptions): Promise<WebhookEndpoint> {
      return requestResource(
        ctx,
        { method: 'POST', route: '/webhooks', json: body, ...callOf(options) },
        parsers.webhookEndpoint,
      );
    },
    get(webhookId: string, options?: CallOptions): Promise<WebhookEndpoint> {
      return requestResource(
        ctx,
        { method: 'GET', route: ONE, params: one(webhookId), ...callOf(options) },
        parsers.webhookEndpoint,
      );
    },
    update(webhookId: string, body: PatchWebhookBody, options?: CallOptions): Promise<WebhookEndpoint> {
      return requestResource(
        ctx,
        { method: 'PATCH', route: ONE, params: one(webhookId), json: body, ...callOf(options) },
        parsers.webhookEndpoint,
      );
    },
    delete(webhookId: string, options?: CallOptions): Promise<void> {
      return requestNoContent(ctx, {
        method: 'DELETE',
        route: ONE,
        params: one(webhookId),
        ...callOf(options),
      });
    },
  };
}

/** The deliveries to an endpoint: a test ping, the attempts made, a redelivery. */
function deliveryCalls(ctx: ClientContext) {
  return {
    /** Sends a signed ping; resolves with the delivery attempt and the status the endpoint returned. */
    test(webhookId: string, options?: CallOptions): Promise<WebhookDelivery> {
      return requestResource(
        ctx,
        { method: 'POST', route: `${ONE}/test`, params: one(webhookId), ...callOf(options) },
        parsers.webhookDelivery,
      );
    },
    deliveries(
      webhookId: string,
      options: ListOptions<{ status?: string }> = {},
    ): Paginated<WebhookDelivery> {
      return paginate(ctx, listSpec(`${ONE}/deliveries`, options, one(webhookId)), parsers.webhookDelivery);
    },
    /** 202: a new attempt is queued. */
    redeliver(webhookId: string, deliveryId: string, options?: CallOptions): Promise<void> {
      return requestNoContent(ctx, {
        method: 'POST',
        route: `${ONE}/deliveries/{delivery_id}/redeliver`,
        params: { webhook_id: webhookId, delivery_id: deliveryId },
        ...callOf(options),
      });
    },
  };
}

export function createWebhooksApi(ctx: ClientContext) {
  return { ...endpointCalls(ctx), ...deliveryCalls(ctx) };
}

export type WebhooksApi = ReturnType<typeof createWebhooksApi>;
