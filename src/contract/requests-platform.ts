/** Request bodies of the platform endpoints (part 4.1, 4.13, 4.14, 4.16). */
import * as z from 'zod';
import { FILE_PURPOSES, GRANT_TYPES, WEBHOOK_SETTABLE_STATUSES } from './enums.js';
import { EVENT_TYPES } from './event-types.js';
import { type SchemaKit, itemCodeParams } from './kit.js';
import { LIMITS } from './limits.js';

export interface WebhookUrlOptions {
  /** Admit http://127.0.0.1 / localhost for local use (the sandbox's --allow-http-webhooks). */
  allowLoopbackHttp?: boolean;
}

/** The https-only rule as a JSON Schema pattern (the refine below does not reach JSON Schema). */
export const WEBHOOK_URL_PATTERN = `^${LIMITS.webhook.urlScheme}//`;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Webhook endpoint URLs are https only (part 8); loopback http only when explicitly allowed. */
export function webhookUrl(options: WebhookUrlOptions = {}) {
  const url = z.url().refine(
    (value) => {
      const url = new URL(value);
      if (url.protocol === LIMITS.webhook.urlScheme) return true;
      return (
        options.allowLoopbackHttp === true && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)
      );
    },
    { message: 'must be an https:// URL', ...itemCodeParams('invalid_format') },
  );
  return options.allowLoopbackHttp === true ? url : url.meta({ pattern: WEBHOOK_URL_PATTERN });
}

export function definePlatformRequests(k: SchemaKit, options: WebhookUrlOptions = {}) {
  /** POST /oauth/token (JSON or form-encoded; form fields arrive as strings too). */
  const TokenRequest = k.object({
    grant_type: k.enumOf(GRANT_TYPES),
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    scope: z.string().optional(),
  });
  /** The non-file fields of the multipart POST /files. */
  const FileUploadFields = k.object({ purpose: k.enumOf(FILE_PURPOSES) });
  /** POST /webhooks */
  const CreateWebhookRequest = k.object({
    url: webhookUrl(options),
    events: z.array(k.enumOf(EVENT_TYPES)).min(1),
    description: z.string().max(LIMITS.length.webhookDescription).nullable().optional(),
  });
  /** PATCH /webhooks/{webhook_id} */
  const PatchWebhookRequest = k.object({
    url: webhookUrl(options).optional(),
    events: z.array(k.enumOf(EVENT_TYPES)).min(1).optional(),
    status: k.enumOf(WEBHOOK_SETTABLE_STATUSES).optional(),
    description: z.string().max(LIMITS.length.webhookDescription).nullable().optional(),
  });
  return { TokenRequest, FileUploadFields, CreateWebhookRequest, PatchWebhookRequest };
}
