/** Pull-based event feed (gap G20; marked not available, the daemon does not rely on it). */
import type { EventEnvelope } from '../../contract/index.js';
import type { ClientContext } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import { listSpec, type ListOptions } from './common.js';
import { EVENT_ROUTES } from './gap-routes.js';

export interface EventFilters {
  /** Event types, sent comma-separated. */
  types?: readonly string[];
  occurred_since?: string;
}

export function createEventsApi(ctx: ClientContext) {
  return {
    list(options: ListOptions<EventFilters> = {}): Paginated<EventEnvelope> {
      return paginate(ctx, listSpec(EVENT_ROUTES.list, options), parsers.event);
    },
  };
}

export type EventsApi = ReturnType<typeof createEventsApi>;
