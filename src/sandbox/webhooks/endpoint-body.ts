/** Checks of the webhook endpoint bodies of POST and PATCH /webhooks; every problem is reported at once. */
import { validationError } from '../http/problem.js';
import type { PlatformContext } from '../platform/context.js';

type Item = { field: string; code: string; message?: string };

function urlProblems(ctx: PlatformContext, raw: unknown, items: Item[]): void {
  if (typeof raw !== 'string' || raw === '') {
    items.push({ field: 'url', code: 'required', message: 'url is required.' });
    return;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    items.push({ field: 'url', code: 'invalid_format', message: 'url must be an absolute URL.' });
    return;
  }
  const localHttp = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol === 'https:' || (ctx.allowHttpWebhooks && localHttp)) return;
  items.push({ field: 'url', code: 'invalid_format', message: 'url must start with https://.' });
}

function eventsProblems(raw: unknown, items: Item[]): void {
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((e) => typeof e === 'string' && e !== '')) {
    items.push({
      field: 'events',
      code: 'required',
      message: 'events must be a non-empty array of event types.',
    });
  }
}

function descriptionProblems(raw: unknown, items: Item[]): void {
  if (raw === undefined || raw === null) return;
  if (typeof raw !== 'string') items.push({ field: 'description', code: 'invalid_format' });
  else if (raw.length > 200)
    items.push({ field: 'description', code: 'too_long', message: 'At most 200 characters.' });
}

/** Like every request body, webhook bodies refuse fields they do not define (422 unsupported_value). */
function unknownFieldProblems(body: Record<string, unknown>, known: readonly string[], items: Item[]): void {
  for (const field of Object.keys(body)) {
    if (!known.includes(field)) items.push({ field, code: 'unsupported_value', message: 'unknown field' });
  }
}

export function asRecord(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw validationError([{ field: 'body', code: 'invalid_format' }]);
  return body as Record<string, unknown>;
}

/** 422 unless the body is a valid new endpoint: url, events, an optional description. */
export function checkCreateBody(ctx: PlatformContext, body: Record<string, unknown>): void {
  const items: Item[] = [];
  unknownFieldProblems(body, ['url', 'events', 'description'], items);
  urlProblems(ctx, body['url'], items);
  eventsProblems(body['events'], items);
  descriptionProblems(body['description'], items);
  if (items.length > 0) throw validationError(items);
}

/** 422 unless every field the body gives is valid (status: active or disabled). */
export function checkPatchBody(ctx: PlatformContext, body: Record<string, unknown>): void {
  const items: Item[] = [];
  unknownFieldProblems(body, ['url', 'events', 'status', 'description'], items);
  if ('url' in body) urlProblems(ctx, body['url'], items);
  if ('events' in body) eventsProblems(body['events'], items);
  descriptionProblems(body['description'], items);
  if ('status' in body && body['status'] !== 'active' && body['status'] !== 'disabled') {
    items.push({
      field: 'status',
      code: 'invalid_enum',
      message: 'status must be active or disabled.',
    });
  }
  if (items.length > 0) throw validationError(items);
}
