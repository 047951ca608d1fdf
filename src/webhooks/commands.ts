import type { WebhookApi, WebhookDelivery, WebhookEndpoint } from './api.js';
import type { WebhookSecretStore } from './secrets.js';

export interface RegisterWebhookOptions {
  url: string;
  events: readonly string[];
  description?: string;
  secrets: WebhookSecretStore;
}

export interface RegisterWebhookResult {
  /** The endpoint as the API returned it, without its secret. */
  endpoint: WebhookEndpoint;
  created: boolean;
}

/**
 * Creates the endpoint for `url`, or updates the existing one (events, description, re-activation). A new
 * endpoint's secret, shown only once by the API, goes straight into the state file and is never returned.
 */
export async function registerWebhook(
  api: WebhookApi,
  options: RegisterWebhookOptions,
): Promise<RegisterWebhookResult> {
  const existing = (await api.listWebhooks()).find((endpoint) => endpoint.url === options.url);
  const description = options.description === undefined ? {} : { description: options.description };
  if (existing !== undefined) {
    const endpoint = await api.updateWebhook(existing.id, {
      events: options.events,
      ...description,
      ...(existing.status === 'disabled' ? { status: 'active' as const } : {}),
    });
    return { endpoint: withoutSecret(endpoint), created: false };
  }
  const created = await api.createWebhook({ url: options.url, events: options.events, ...description });
  if (created.secret === undefined || created.secret === '') {
    throw new Error(
      `webhook endpoint ${created.id} was created but the API returned no secret; delete it and retry`,
    );
  }
  options.secrets.add(created.id, created.secret);
  return { endpoint: withoutSecret(created), created: true };
}

/** Asks the API to send the signed ping; returns the delivery attempt with the status our endpoint answered. */
export async function testWebhook(api: WebhookApi, endpointId: string): Promise<WebhookDelivery> {
  return api.testWebhook(endpointId);
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

function withoutSecret(endpoint: WebhookEndpoint): WebhookEndpoint {
  const { secret: _secret, ...rest } = endpoint;
  return rest;
}
