/** The event catalog of part 6 as OpenAPI 3.1 `webhooks`: one POST per event type, signed with Service-Signature. */
import { EVENT_TYPES, type EventType } from '../event-types.js';
import { SUPPLIER_EVENT_TYPES } from '../event-types.js';
import { EVENT_DATA_SCHEMAS } from '../gaps.js';
import { LIMITS } from '../limits.js';
import { schemaRef } from './components.js';
import type { JsonObject } from './types.js';

/** Event types whose data shape part 6.1 shows; the others are the G30 choice. */
const DATA_SHOWN: readonly EventType[] = ['order.created', 'order.updated'];

const SIGNATURE_HEADER = {
  name: 'Service-Signature',
  in: 'header',
  required: true,
  description:
    '`t=<unix_seconds>,v1=<hex_hmac>`: HMAC-SHA256 over `{t}.{raw_body}` keyed with the endpoint secret, hex ' +
    `encoded. Verify the raw bytes before parsing, compare in constant time, reject a t more than ` +
    `${LIMITS.webhook.signatureToleranceSeconds} seconds from your clock. More than one v1 may be present.`,
  schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]+)+$' },
};

function eventBody(type: EventType): JsonObject {
  return {
    allOf: [schemaRef('EventEnvelope')],
    type: 'object',
    properties: { type: { const: type }, data: schemaRef(EVENT_DATA_SCHEMAS[type]) },
  };
}

function webhook(type: EventType): JsonObject {
  const audience = (SUPPLIER_EVENT_TYPES as readonly string[]).includes(type) ? 'Supplier' : 'Buyer or any';
  return {
    post: {
      operationId: `event_${type.replace(/[^a-z]+/g, '_')}`,
      summary: `Event ${type}`,
      description:
        `${audience} event. Answer 2xx quickly; any other answer is a failed delivery, retried up to ` +
        `${LIMITS.webhook.maxAttempts} attempts over about 24 hours. Events may arrive out of order and more than ` +
        'once: deduplicate by id. Ignore unknown event types and fields.',
      tags: ['Events'],
      security: [],
      parameters: [SIGNATURE_HEADER],
      requestBody: { required: true, content: { 'application/json': { schema: eventBody(type) } } },
      responses: {
        '2XX': { description: 'Received; the delivery succeeded.' },
        '400': { description: 'The signature did not verify; the event was not processed.' },
      },
      ...(DATA_SHOWN.includes(type) ? {} : { 'x-contract-gap': 'G30' }),
    },
  };
}

export function webhookEntries(): Record<string, JsonObject> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, webhook(type)]));
}
