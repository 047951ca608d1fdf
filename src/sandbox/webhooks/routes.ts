/** Part 4.16: webhook endpoint CRUD, delivery listing, redelivery and the test ping. */
import type { RouteDef } from '../http/types.js';
import { notFound } from '../http/problem.js';
import type { PlatformContext } from '../platform/context.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { deliveriesPage, presentDelivery } from './deliveries.js';
import {
  accountEndpoints,
  createEndpoint,
  deleteEndpoint,
  ownedEndpoint,
  presentEndpoint,
  updateEndpoint,
} from './endpoints.js';

const BASE = { scope: 'webhooks:manage', group: 'webhooks' } as const;

export function webhookRoutes(ctx: PlatformContext, dispatcher: WebhookDispatcher): RouteDef[] {
  return [...endpointRoutes(ctx), ...deliveryRoutes(ctx, dispatcher)];
}

function endpointRoutes(ctx: PlatformContext): RouteDef[] {
  return [
    {
      ...BASE,
      method: 'GET',
      path: '/webhooks',
      handle: (req) => ({
        status: 200,
        body: {
          data: accountEndpoints(ctx, req.caller.accountId).map((endpoint) => presentEndpoint(endpoint)),
        },
      }),
    },
    {
      ...BASE,
      method: 'POST',
      path: '/webhooks',
      idempotency: 'optional',
      handle: (req) => ({
        status: 201,
        body: presentEndpoint(createEndpoint(ctx, req.caller.accountId, req.body), true),
      }),
    },
    {
      ...BASE,
      method: 'GET',
      path: '/webhooks/:webhook_id',
      handle: (req) => ({ status: 200, body: presentEndpoint(ownedEndpoint(ctx, req)) }),
    },
    {
      ...BASE,
      method: 'PATCH',
      path: '/webhooks/:webhook_id',
      handle(req) {
        const endpoint = ownedEndpoint(ctx, req);
        updateEndpoint(ctx, endpoint, req.body);
        return { status: 200, body: presentEndpoint(endpoint) };
      },
    },
    {
      ...BASE,
      method: 'DELETE',
      path: '/webhooks/:webhook_id',
      handle(req) {
        deleteEndpoint(ctx, ownedEndpoint(ctx, req));
        return { status: 204 };
      },
    },
  ];
}

function deliveryRoutes(ctx: PlatformContext, dispatcher: WebhookDispatcher): RouteDef[] {
  return [
    {
      ...BASE,
      method: 'POST',
      path: '/webhooks/:webhook_id/test',
      async handle(req) {
        const attempt = await dispatcher.ping(ownedEndpoint(ctx, req));
        return { status: 200, body: presentDelivery(attempt) };
      },
    },
    {
      ...BASE,
      method: 'GET',
      path: '/webhooks/:webhook_id/deliveries',
      handle: (req) => ({ status: 200, body: deliveriesPage(ctx, ownedEndpoint(ctx, req), req) }),
    },
    {
      ...BASE,
      method: 'POST',
      path: '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
      handle(req) {
        const endpoint = ownedEndpoint(ctx, req);
        const delivery = ctx.state.deliveries.get(req.params['delivery_id'] ?? '');
        if (!delivery || delivery.webhook_id !== endpoint.id) throw notFound('No such delivery.');
        dispatcher.redeliver(delivery);
        return { status: 202 };
      },
    },
  ];
}
