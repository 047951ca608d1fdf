/** An endpoint's delivery attempts as GET /webhooks/{id}/deliveries shows them. */
import type { RequestContext } from '../http/types.js';
import { validationError } from '../http/problem.js';
import { paginate } from '../http/paging.js';
import type { PlatformContext } from '../platform/context.js';
import type { DeliveryAttempt, WebhookEndpoint } from '../platform/state.js';

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'];

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

/** One page of the endpoint's attempts, filtered by the optional status. */
export function deliveriesPage(
  ctx: PlatformContext,
  endpoint: WebhookEndpoint,
  req: RequestContext,
): Record<string, unknown> {
  const status = req.query.get('status');
  if (status !== null && !DELIVERY_STATUSES.includes(status)) {
    throw validationError([{ field: 'status', code: 'invalid_enum', message: DELIVERY_STATUSES.join(', ') }]);
  }
  const rows = [...ctx.state.deliveries.values()].filter(
    (d) => d.webhook_id === endpoint.id && (status === null || d.status === status),
  );
  const page = paginate(rows, req.query, (d) => ({ at: d.created_at, id: d.id }));
  return { ...page, data: page.data.map(presentDelivery) };
}
