import type { WebhookApi, WebhookDelivery, WebhookEndpoint } from './api.js';
import type { WebhookSecretStore } from './secrets.js';

export interface RegisterWebhookOptions {
  url: string;
  events: readonly string[];
  description?: string;
  secrets: WebhookSecretStore;
  /**
   * The create's idempotency key, the same each time the same command is carried out (a queued command's id): a
   * leader that created the endpoint and died before storing its secret leaves the next one a create to replay.
   */
  idempotencyKey?: string;
  /** The same command was taken before: an endpoint with no stored secret may be the one its lost create made. */
  repeat?: boolean;
  /**
   * This caller's own endpoint at another URL (the embedded sandbox's daemon, started on another port), moved to
   * `url` instead of another being created beside it; only one whose secret the state holds.
   */
  movable?: (endpoint: WebhookEndpoint) => boolean;
}

export interface RegisterWebhookResult {
  /** The endpoint as the API returned it, without its secret. */
  endpoint: WebhookEndpoint;
  created: boolean;
}

/**
 * Creates the endpoint for `url`, or updates the existing one (events, description, re-activation; the URL of a
 * movable one). A new
 * endpoint's secret, shown only once by the API, goes straight into the state file and is never returned.
 */
export async function registerWebhook(
  api: WebhookApi,
  options: RegisterWebhookOptions,
): Promise<RegisterWebhookResult> {
  const endpoints = await api.listWebhooks();
  const existing =
    endpoints.find((endpoint) => endpoint.url === options.url) ??
    endpoints.find(
      (endpoint) => options.movable?.(endpoint) === true && hasSecret(options.secrets, endpoint.id),
    );
  const description = options.description === undefined ? {} : { description: options.description };
  const input = { url: options.url, events: options.events, ...description };
  const key = options.idempotencyKey === undefined ? undefined : { idempotencyKey: options.idempotencyKey };
  if (existing !== undefined && !hasSecret(options.secrets, existing.id)) {
    // Created by this same command whose answer was lost: the replayed create carries the secret.
    const replayed =
      key === undefined || options.repeat !== true ? undefined : await api.createWebhook(input, key);
    if (replayed?.id === existing.id && replayed.secret !== undefined && replayed.secret !== '') {
      options.secrets.add(replayed.id, replayed.secret);
      return { endpoint: withoutSecret(replayed), created: true };
    }
    if (replayed !== undefined && replayed.secret !== undefined && replayed.secret !== '') {
      options.secrets.add(replayed.id, replayed.secret);
    }
    throw new Error(
      `webhook endpoint ${existing.id} for ${options.url} exists at the API but its signing secret is not in the ` +
        'state (the API shows a secret only in the answer to the create), so its deliveries cannot be verified; ' +
        `delete endpoint ${existing.id} at the API and run \`supply-sync webhooks register\` again` +
        (replayed === undefined || replayed.id === existing.id
          ? ''
          : ` (endpoint ${replayed.id} was created meanwhile with its secret stored; delete it too or keep it)`),
    );
  }
  if (existing !== undefined) {
    const endpoint = await api.updateWebhook(existing.id, {
      ...(existing.url === options.url ? {} : { url: options.url }),
      events: options.events,
      ...description,
      ...(existing.status === 'disabled' ? { status: 'active' as const } : {}),
    });
    return { endpoint: withoutSecret(endpoint), created: false };
  }
  const created = await api.createWebhook(input, key);
  if (created.secret === undefined || created.secret === '') {
    throw new Error(
      `webhook endpoint ${created.id} was created but the API returned no secret; delete it and retry`,
    );
  }
  options.secrets.add(created.id, created.secret);
  return { endpoint: withoutSecret(created), created: true };
}

/** Asks the API to send the signed ping; returns the delivery attempt with the status our endpoint answered. */
export async function testWebhook(
  api: WebhookApi,
  endpointId: string,
  options: { idempotencyKey?: string } = {},
): Promise<WebhookDelivery> {
  return api.testWebhook(endpointId, options);
}

export interface RecoverOptions {
  /** Only deliveries attempted at or after this time (e.g. when the daemon went down). */
  since?: Date;
  /** Events already in the inbox need no redelivery. */
  isStored?: (eventId: string) => boolean;
  dryRun?: boolean;
}

export interface RecoverResult {
  reactivated: boolean;
  /** One failed delivery per event whose latest attempt failed. */
  failed: WebhookDelivery[];
  redelivered: string[];
  skippedStored: string[];
}

/**
 * After downtime: re-activates a disabled endpoint, finds events whose latest delivery attempt failed and asks
 * for one redelivery of each (the event id stays the same, so the inbox deduplicates anything that arrives twice).
 */
export async function recoverWebhookDeliveries(
  api: WebhookApi,
  endpointId: string,
  options: RecoverOptions = {},
): Promise<RecoverResult> {
  const endpoint = (await api.listWebhooks()).find((e) => e.id === endpointId);
  if (endpoint === undefined) throw new Error(`webhook endpoint ${endpointId} not found`);
  let reactivated = false;
  if (endpoint.status === 'disabled' && options.dryRun !== true) {
    await api.updateWebhook(endpointId, { status: 'active' });
    reactivated = true;
  }
  const latestByEvent = new Map<string, WebhookDelivery>();
  for await (const delivery of api.listDeliveries(endpointId)) {
    const current = latestByEvent.get(delivery.event_id);
    if (current === undefined || isLater(delivery, current)) latestByEvent.set(delivery.event_id, delivery);
  }
  const sinceMs = options.since?.getTime();
  const failed = [...latestByEvent.values()].filter(
    (d) =>
      d.status === 'failed' &&
      (sinceMs === undefined || d.attempted_at === undefined || Date.parse(d.attempted_at) >= sinceMs),
  );
  const result: RecoverResult = { reactivated, failed, redelivered: [], skippedStored: [] };
  for (const delivery of failed) {
    if (options.isStored?.(delivery.event_id) === true) {
      result.skippedStored.push(delivery.event_id);
      continue;
    }
    if (options.dryRun === true) continue;
    await api.redeliver(endpointId, delivery.id);
    result.redelivered.push(delivery.event_id);
  }
  return result;
}

function isLater(a: WebhookDelivery, b: WebhookDelivery): boolean {
  if (a.attempt !== b.attempt) return a.attempt > b.attempt;
  return Date.parse(a.attempted_at ?? '') > Date.parse(b.attempted_at ?? '');
}

function hasSecret(secrets: WebhookSecretStore, endpointId: string): boolean {
  return secrets.entries().some((entry) => entry.endpointId === endpointId);
}

function withoutSecret(endpoint: WebhookEndpoint): WebhookEndpoint {
  const { secret: _secret, ...rest } = endpoint;
  return rest;
}
