/** The webhook / event-feed envelope of part 6.1. Event data is parsed by type with `eventDataSchemaName`. */
import * as z from 'zod';
import { EVENT_DATA_OBJECTS } from './enums.js';
import { EVENT_TYPES } from './event-types.js';
import { Id, Timestamp } from './formats.js';
import type { SchemaKit } from './kit.js';

export function defineEvents(k: SchemaKit) {
  /**
   * `data` keeps every field (it is a resource snapshot, parsed again by type), so it is loose in both modes;
   * only `object` and `id` are checked here.
   */
  const EventData = z.looseObject({ object: k.enumOf(EVENT_DATA_OBJECTS), id: Id });
  const EventEnvelope = k.object({
    id: Id,
    type: k.enumOf(EVENT_TYPES),
    api_version: z.string(),
    occurred_at: Timestamp,
    account_id: z.string(),
    data: EventData,
  });
  return { EventData, EventEnvelope };
}
