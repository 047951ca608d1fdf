/** Minimal, tolerant reading of the webhook envelope (contract part 6.1): id, type and occurred_at are required. */

export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: string;
  /** The verified body exactly as received (valid UTF-8 JSON), stored verbatim in the inbox. */
  payload: Uint8Array;
}

export type EnvelopeFailure = 'invalid_utf8' | 'invalid_json' | 'invalid_envelope';

export type EnvelopeResult = { ok: true; event: WebhookEvent } | { ok: false; reason: EnvelopeFailure };

const MAX_ID_LENGTH = 255;
// One decoder serves every call: a non-streaming decode() starts from a clean state each time.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const TIMESTAMP_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function parseEnvelope(rawBody: Uint8Array): EnvelopeResult {
  let text: string;
  try {
    text = STRICT_UTF8.decode(rawBody);
  } catch {
    return { ok: false, reason: 'invalid_utf8' };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'invalid_json' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: false, reason: 'invalid_envelope' };
  const { id, type, occurred_at: occurredAt } = body as Record<string, unknown>;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    return { ok: false, reason: 'invalid_envelope' };
  }
  if (typeof type !== 'string' || type.length === 0) return { ok: false, reason: 'invalid_envelope' };
  if (typeof occurredAt !== 'string' || !isTimestampWithOffset(occurredAt)) {
    return { ok: false, reason: 'invalid_envelope' };
  }
  return { ok: true, event: { id, type, occurredAt, payload: rawBody } };
}

function isTimestampWithOffset(value: string): boolean {
  return TIMESTAMP_WITH_OFFSET.test(value) && !Number.isNaN(Date.parse(value));
}
