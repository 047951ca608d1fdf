/** Platform operations: token, account, files, exports, audit, webhooks (part 4.1, 4.13-4.17, G20). */
import { EVENT_TYPES } from '../event-types.js';
import { FILE_PURPOSES, WEBHOOK_DELIVERY_STATUSES } from '../enums.js';
import { EVENT_FEED } from '../gaps.js';
import { LIMITS } from '../limits.js';
import { schemaRef } from './components.js';
import type { OperationSpec } from './operation.js';
import { commaList, paramRef, pathParam, queryParam } from './parameters.js';

const webhookId = pathParam('webhook_id', 'Id of the webhook endpoint.');
const paging = [paramRef('cursor'), paramRef('limit')];
const WEBHOOKS = { tag: 'Webhooks', scope: 'webhooks:manage' } as const;

const tokenBody = {
  required: true,
  description: 'Form-encoded or JSON; client_secret is the API key.',
  content: {
    'application/x-www-form-urlencoded': { schema: schemaRef('TokenRequest') },
    'application/json': { schema: schemaRef('TokenRequest') },
  },
};

const fileBody = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file', 'purpose'],
        properties: {
          file: {
            type: 'string',
            contentMediaType: 'application/octet-stream',
            description: `The file, up to ${LIMITS.fileUploadMaxBytes} bytes.`,
          },
          purpose: { type: 'string', enum: [...FILE_PURPOSES] },
        },
      },
    },
  },
};

export const PLATFORM_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'post',
    path: '/oauth/token',
    operationId: 'createAccessToken',
    summary: 'Exchange the API key for an access token',
    description:
      'Client-credentials grant. The token (JWT) is valid for 60 minutes and carries the client scopes.',
    tag: 'Auth and account',
    anonymous: true,
    body: tokenBody,
    success: [{ status: 200, description: 'The access token.', schema: 'TokenResponse' }],
    errors: [400, 401, 403],
    gap: 'G29',
  },
  {
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'The account context of the credential',
    tag: 'Auth and account',
    success: [
      { status: 200, description: 'Account, client, scopes, plan, features, rate limits.', schema: 'Me' },
    ],
  },
  {
    method: 'post',
    path: '/files',
    operationId: 'uploadFile',
    summary: 'Upload a file',
    description: 'Files not referenced within 24 hours are deleted (later reads give 404 not_found).',
    tag: 'Files',
    body: fileBody,
    success: [{ status: 201, description: 'The stored file.', schema: 'File' }],
  },
  {
    method: 'get',
    path: '/files/{file_id}',
    operationId: 'getFile',
    summary: 'Read a file with a signed download URL (valid about 1 hour)',
    tag: 'Files',
    parameters: [pathParam('file_id', 'Id of the file.')],
    success: [{ status: 200, description: 'The file.', schema: 'File' }],
    errors: [404],
  },
  {
    method: 'post',
    path: '/exports',
    operationId: 'createExportJob',
    summary: 'Start a bulk export',
    tag: 'Exports',
    scope: 'exports:manage',
    plan: 'Enterprise',
    notYetAvailable: true,
    body: 'CreateExportJobRequest',
    success: [{ status: 202, description: 'The export job, queued.', schema: 'ExportJob' }],
    gap: 'G26',
  },
  {
    method: 'get',
    path: '/exports/{export_id}',
    operationId: 'getExportJob',
    summary: 'Read an export job',
    tag: 'Exports',
    scope: 'exports:manage',
    plan: 'Enterprise',
    notYetAvailable: true,
    parameters: [pathParam('export_id', 'Id of the export job.')],
    success: [{ status: 200, description: 'The export job.', schema: 'ExportJob' }],
    errors: [404],
  },
  {
    method: 'get',
    path: '/audit/requests',
    operationId: 'listAuditRequests',
    summary: 'The request audit log',
    tag: 'Audit',
    plan: 'Enterprise',
    notYetAvailable: true,
    parameters: [
      ...paging,
      paramRef('from'),
      paramRef('to'),
      queryParam('client_id', { type: 'string' }, 'Only requests of this API client.'),
      queryParam(
        'status',
        { type: 'integer', minimum: 100, maximum: 599 },
        'Only requests answered with this status.',
      ),
    ],
    success: [{ status: 200, description: 'A page of audit entries.', schema: 'AuditRequestEntryPage' }],
  },
  {
    ...WEBHOOKS,
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhook endpoints',
    success: [{ status: 200, description: 'Every endpoint (no paging).', schema: 'WebhookEndpointList' }],
  },
  {
    ...WEBHOOKS,
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Register a webhook endpoint',
    description:
      'The URL must start with https://. The response carries the signing secret, shown only once.',
    body: 'CreateWebhookRequest',
    success: [{ status: 201, description: 'The endpoint, with its secret.', schema: 'WebhookEndpoint' }],
  },
  {
    ...WEBHOOKS,
    method: 'get',
    path: '/webhooks/{webhook_id}',
    operationId: 'getWebhook',
    summary: 'Read a webhook endpoint',
    parameters: [webhookId],
    success: [{ status: 200, description: 'The endpoint.', schema: 'WebhookEndpoint' }],
    errors: [404],
  },
  {
    ...WEBHOOKS,
    method: 'patch',
    path: '/webhooks/{webhook_id}',
    operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint (status active re-enables a disabled one)',
    parameters: [webhookId],
    body: 'PatchWebhookRequest',
    success: [{ status: 200, description: 'The endpoint.', schema: 'WebhookEndpoint' }],
    errors: [404],
  },
  {
    ...WEBHOOKS,
    method: 'delete',
    path: '/webhooks/{webhook_id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint',
    parameters: [webhookId],
    success: [{ status: 204, description: 'Deleted.' }],
    errors: [404],
  },
  {
    ...WEBHOOKS,
    method: 'post',
    path: '/webhooks/{webhook_id}/test',
    operationId: 'testWebhook',
    summary: 'Send a signed ping event',
    parameters: [webhookId],
    success: [
      {
        status: 200,
        description: 'The delivery attempt with the status the endpoint returned.',
        schema: 'WebhookDelivery',
      },
    ],
    errors: [404],
  },
  {
    ...WEBHOOKS,
    method: 'get',
    path: '/webhooks/{webhook_id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'List delivery attempts',
    parameters: [
      webhookId,
      ...paging,
      queryParam('status', commaList(WEBHOOK_DELIVERY_STATUSES), 'Delivery status.'),
    ],
    success: [{ status: 200, description: 'A page of delivery attempts.', schema: 'WebhookDeliveryPage' }],
    errors: [404],
  },
  {
    ...WEBHOOKS,
    method: 'post',
    path: '/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
    operationId: 'redeliverWebhook',
    summary: 'Queue a new attempt of a delivery',
    parameters: [webhookId, pathParam('delivery_id', 'Id of the delivery attempt.')],
    success: [{ status: 202, description: 'Queued; no body.' }],
    errors: [404],
  },
  {
    method: 'get',
    path: EVENT_FEED.path,
    operationId: 'listEvents',
    summary: 'The pull-based change feed',
    description: 'Event envelopes in the order they occurred, with the webhook catalog.',
    tag: 'Events',
    scope: EVENT_FEED.scope,
    plan: EVENT_FEED.plan,
    notYetAvailable: true,
    parameters: [
      ...paging,
      queryParam('types', commaList(EVENT_TYPES), 'Comma-separated event types.'),
      queryParam('occurred_since', { type: 'string', format: 'date-time' }, 'Only events after this time.'),
    ],
    success: [{ status: 200, description: 'A page of event envelopes.', schema: 'EventEnvelopePage' }],
    gap: 'G20',
  },
];
