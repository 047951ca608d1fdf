/** Lenient parsing of an event's `data` by its type (G30), for webhook receivers and the event feed. */
import { type LenientResult, parseLenientAs } from './drift.js';
import { EVENT_TYPES, type EventType } from './event-types.js';
import { EVENT_DATA_SCHEMAS } from './gaps.js';
import type { ContractType } from './types.js';

type EventDataSchemaName = (typeof EVENT_DATA_SCHEMAS)[EventType];
export type EventDataOf<T extends EventType> = ContractType<(typeof EVENT_DATA_SCHEMAS)[T]>;

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isKnownEventType(type: string): type is EventType {
  return KNOWN_TYPES.has(type);
}

/**
 * Parses `data` with the schema chosen for `type`. An unknown event type gives `undefined`: the contract asks
 * receivers to ignore event types they do not know.
 */
export function parseEventData(
  type: string,
  data: unknown,
): LenientResult<ContractType<EventDataSchemaName>> | undefined {
  if (!isKnownEventType(type)) return undefined;
  // The name comes from EVENT_DATA_SCHEMAS, so the result is one of the event data types.
  return parseLenientAs(EVENT_DATA_SCHEMAS[type], data) as LenientResult<ContractType<EventDataSchemaName>>;
}
