/** Platform resources (part 2.8): files, export jobs, the audit log, webhook endpoints and deliveries. */
import * as z from 'zod';
import {
  ENVIRONMENTS,
  EXPORT_FORMATS,
  EXPORT_JOB_STATUSES,
  EXPORT_RESOURCES,
  FILE_PURPOSES,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_STATUSES,
} from './enums.js';
import { EVENT_TYPES } from './event-types.js';
import { DateString, Id, NonNegativeInt, Timestamp, Uri } from './formats.js';
import type { SchemaKit } from './kit.js';
import { LIMITS } from './limits.js';

/** Files and export jobs. */
function fileSchemas(k: SchemaKit) {
  const File = k.object({
    id: Id,
    name: z.string(),
    content_type: z.string(),
    size_bytes: NonNegativeInt,
    download_url: Uri.optional(),
    purpose: k.enumOf(FILE_PURPOSES),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, { message: 'expected a lowercase hex SHA-256' }),
    created_at: Timestamp,
    expires_at: Timestamp.nullable().optional(),
  });
  const ExportRequest = k.object({
    resources: z.array(k.enumOf(EXPORT_RESOURCES)).min(1),
    from: DateString.optional(),
    to: DateString.optional(),
    format: k.enumOf(EXPORT_FORMATS).optional(),
    branch_ids: z.array(z.string()).optional(),
  });
  const ExportFile = k.object({
    resource: k.enumOf(EXPORT_RESOURCES),
    download_url: Uri,
    size_bytes: NonNegativeInt.optional(),
    row_count: NonNegativeInt.optional(),
    expires_at: Timestamp.optional(),
  });
  const ExportJob = k.object({
    id: Id,
    status: k.enumOf(EXPORT_JOB_STATUSES),
    request: ExportRequest,
    files: z.array(ExportFile).optional(),
    error: z.string().nullable().optional(),
    created_at: Timestamp,
    completed_at: Timestamp.nullable().optional(),
  });
  return { File, ExportRequest, ExportFile, ExportJob };
}

function auditRequestEntry(k: SchemaKit) {
  return k.object({
    request_id: z.string(),
    timestamp: Timestamp,
    environment: k.enumOf(ENVIRONMENTS).optional(),
    client_id: z.string(),
    client_name: z.string().optional(),
    key_id: z.string().optional(),
    method: z.string(),
    path: z.string(),
    query: z.string().nullable().optional(),
    status: z.int(),
    error_code: z.string().nullable().optional(),
    latency_ms: NonNegativeInt.optional(),
    ip: z.string().optional(),
    user_agent: z.string().nullable().optional(),
    request_bytes: NonNegativeInt.optional(),
    response_bytes: NonNegativeInt.optional(),
    scope_used: z.string().nullable().optional(),
  });
}

/** Webhook endpoints and their deliveries. */
function webhookSchemas(k: SchemaKit) {
  const WebhookEndpoint = k.object({
    id: Id,
    url: Uri,
    events: z.array(k.enumOf(EVENT_TYPES)),
    status: k.enumOf(WEBHOOK_STATUSES),
    description: z.string().max(LIMITS.length.webhookDescription).nullable().optional(),
    last_delivery_at: Timestamp.nullable().optional(),
    consecutive_failures: NonNegativeInt.optional(),
    created_at: Timestamp.optional(),
    /** Only in the create response. */
    secret: z.string().optional(),
  });
  const WebhookDelivery = k.object({
    id: Id,
    event_id: z.string(),
    event_type: k.enumOf(EVENT_TYPES),
    attempt: z.int().positive(),
    status: k.enumOf(WEBHOOK_DELIVERY_STATUSES),
    response_status: z.int().nullable().optional(),
    response_time_ms: NonNegativeInt.nullable().optional(),
    response_snippet: z.string().max(LIMITS.webhook.responseSnippetMaxChars).nullable().optional(),
    error: z.string().nullable().optional(),
    attempted_at: Timestamp.optional(),
    next_retry_at: Timestamp.nullable().optional(),
  });
  return { WebhookEndpoint, WebhookDelivery };
}

export function definePlatform(k: SchemaKit) {
  return { ...fileSchemas(k), AuditRequestEntry: auditRequestEntry(k), ...webhookSchemas(k) };
}
