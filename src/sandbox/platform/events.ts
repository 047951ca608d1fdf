/** GET /events (gap G20): the account's event envelopes, the same ones webhooks deliver, paged by occurred_at. */
import type { RouteDef } from '../http/types.js';
import { validationError } from '../http/problem.js';
import { isUpdatedAfter, paginate } from '../http/paging.js';
import type { PlatformContext } from './context.js';

export function eventFeedRoute(ctx: PlatformContext): RouteDef {
  return {
    method: 'GET',
    path: '/events',
    scope: 'events:read',
    minPlan: 'Enterprise',
    group: 'events',
    handle(req) {
      const typesRaw = req.query.get('types');
      const types =
        typesRaw === null || typesRaw === '' ? null : typesRaw.split(',').map((type) => type.trim());
      const sinceRaw = req.query.get('occurred_since');
      const since = sinceRaw === null || sinceRaw === '' ? null : Date.parse(sinceRaw);
      if (since !== null && Number.isNaN(since)) {
        throw validationError([
          { field: 'occurred_since', code: 'invalid_format', message: 'An RFC 3339 timestamp.' },
        ]);
      }
      const rows = [...ctx.state.events.values()].filter(
        (event) =>
          event.account_id === req.caller.accountId &&
          event.type !== 'ping' &&
          (types === null || types.includes(event.type)) &&
          isUpdatedAfter(event.occurred_at, since),
      );
      return {
        status: 200,
        body: paginate(rows, req.query, (event) => ({ at: event.occurred_at, id: event.id })),
      };
    },
  };
}
