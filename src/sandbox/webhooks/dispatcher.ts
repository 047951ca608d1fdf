/**
 * Turns raised events into signed deliveries: one pending attempt per subscribed endpoint, sent in order per
 * endpoint (never blocking an API response), retried on the G25 schedule, endpoints set failing after a failure and
 * disabled after the G24 window. The event id stays the same across retries and redeliveries.
 */
import type { RaisedEvent } from '../http/types.js';
import type { PlatformContext } from '../platform/context.js';
import { isoNow } from '../platform/context.js';
import { newId } from '../platform/ids.js';
import type { DeliveryAttempt, EventEnvelope, WebhookEndpoint } from '../platform/state.js';
import { postSigned } from './post.js';
import { DISABLE_AFTER_MS, retryOffsetMs } from './schedule.js';

/** Hooks for fault injection; the defaults do nothing. */
export interface WebhookFaults {
  duplicate(): boolean;
  holdBackMs(): number;
  skewSeconds(): number;
}

const NO_FAULTS: WebhookFaults = { duplicate: () => false, holdBackMs: () => 0, skewSeconds: () => 0 };
const MAX_EVENTS_KEPT = 20_000;
const MAX_DELIVERIES_KEPT = 50_000;

export class WebhookDispatcher {
  private readonly busy = new Set<string>();
  /** The events map being trimmed and an iterator over it positioned at its oldest entry. */
  private eviction: { events: Map<string, EventEnvelope>; keys: MapIterator<string> } | null = null;
  private readonly sending = new Set<Promise<void>>();
  private closed = false;
  faults: WebhookFaults = NO_FAULTS;

  constructor(private readonly ctx: PlatformContext) {}

  /** Stores the envelope and queues one attempt per active subscribed endpoint of the account. */
  enqueue(raised: RaisedEvent): EventEnvelope {
    const envelope: EventEnvelope = {
      id: newId('evt'),
      type: raised.type,
      api_version: '2',
      occurred_at: this.ctx.stamps.next(),
      account_id: raised.accountId,
      data: raised.data,
    };
    this.storeEvent(envelope);
    for (const endpoint of this.ctx.state.webhooks.values()) {
      if (endpoint.accountId !== raised.accountId || endpoint.status === 'disabled') continue;
      if (!endpoint.events.includes(raised.type) && !endpoint.events.includes('*')) continue;
      this.queueAttempt(endpoint, envelope, 1, this.ctx.clock.now() + this.faults.holdBackMs());
    }
    this.ctx.markDirty();
    this.ctx.kick();
    return envelope;
  }

  /** Queues a new attempt of an existing delivery's event (POST .../redeliver). */
  redeliver(delivery: DeliveryAttempt): void {
    const endpoint = this.ctx.state.webhooks.get(delivery.webhook_id);
    const envelope = this.ctx.state.events.get(delivery.event_id);
    if (!endpoint || !envelope) return;
    const attempts = [...this.ctx.state.deliveries.values()].filter(
      (d) => d.webhook_id === endpoint.id && d.event_id === envelope.id,
    );
    const next = Math.max(...attempts.map((d) => d.attempt), 0) + 1;
    this.queueAttempt(endpoint, envelope, next, this.ctx.clock.now());
    this.ctx.markDirty();
    this.ctx.kick();
  }

  /** Sends a ping right away and returns the finished attempt (POST /webhooks/{id}/test); never retried. */
  async ping(endpoint: WebhookEndpoint): Promise<DeliveryAttempt> {
    const envelope: EventEnvelope = {
      id: newId('evt'),
      type: 'ping',
      api_version: '2',
      occurred_at: this.ctx.stamps.next(),
      account_id: endpoint.accountId,
      data: { object: 'ping', id: newId('ping') },
    };
    this.storeEvent(envelope);
    const attempt = this.queueAttempt(endpoint, envelope, 1, Number.POSITIVE_INFINITY);
    await this.send(endpoint, attempt, envelope, false);
    return attempt;
  }

  /** One pass of the background loop: start due attempts (one in flight per endpoint) and apply the G24 window. */
  tick(): void {
    if (this.closed) return;
    const now = this.ctx.clock.now();
    this.disableExpired(now);
    const due = new Map<string, DeliveryAttempt>();
    for (const attempt of this.ctx.state.deliveries.values()) {
      if (attempt.status !== 'pending' || attempt.dueAtMs > now || this.busy.has(attempt.webhook_id))
        continue;
      const current = due.get(attempt.webhook_id);
      if (!current || attempt.dueAtMs < current.dueAtMs) due.set(attempt.webhook_id, attempt);
    }
    for (const attempt of due.values()) {
      const endpoint = this.ctx.state.webhooks.get(attempt.webhook_id);
      const envelope = this.ctx.state.events.get(attempt.event_id);
      if (!endpoint || !envelope || endpoint.status === 'disabled') continue;
      this.busy.add(endpoint.id);
      const sending = this.send(endpoint, attempt, envelope, true).finally(() => {
        this.busy.delete(endpoint.id);
        this.sending.delete(sending);
        this.ctx.kick();
      });
      this.sending.add(sending);
    }
  }

  get inFlight(): number {
    return this.busy.size;
  }

  /** Stops starting attempts and waits for those in flight (each bounded by the delivery timeout). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.sending]);
  }

  private storeEvent(envelope: EventEnvelope): void {
    const events = this.ctx.state.events;
    events.set(envelope.id, envelope);
    if (events.size <= MAX_EVENTS_KEPT) return;
    // One iterator kept from call to call yields the oldest event each time. A fresh keys().next() after
    // deleting the first entries walks over their holes: O(events dropped) per call, which thousands of
    // events per export request made a visible cost.
    if (this.eviction?.events !== events) this.eviction = { events, keys: events.keys() };
    let oldest = this.eviction.keys.next();
    if (oldest.done === true) {
      this.eviction.keys = events.keys();
      oldest = this.eviction.keys.next();
    }
    if (oldest.done !== true) events.delete(oldest.value);
  }

  private queueAttempt(
    endpoint: WebhookEndpoint,
    envelope: EventEnvelope,
    attempt: number,
    dueAtMs: number,
    scheduleStartMs = dueAtMs,
  ) {
    const record: DeliveryAttempt = {
      id: newId('whd'),
      webhook_id: endpoint.id,
      event_id: envelope.id,
      event_type: envelope.type,
      attempt,
      status: 'pending',
      response_status: null,
      response_time_ms: null,
      response_snippet: null,
      error: null,
      attempted_at: null,
      next_retry_at: null,
      dueAtMs,
      scheduleStartMs,
      created_at: this.ctx.stamps.next(),
    };
    this.ctx.state.deliveries.set(record.id, record);
    this.pruneDeliveries();
    return record;
  }

  private async send(
    endpoint: WebhookEndpoint,
    attempt: DeliveryAttempt,
    envelope: EventEnvelope,
    retry: boolean,
  ) {
    const started = performance.now();
    const timestamp = Math.floor(this.ctx.clock.now() / 1000) + this.faults.skewSeconds();
    attempt.attempted_at = isoNow(this.ctx);
    const copies = this.faults.duplicate() ? 2 : 1;
    const outcome = await postSigned(
      endpoint.url,
      endpoint.secret,
      JSON.stringify(envelope),
      timestamp,
      copies,
    );
    attempt.response_status = outcome.status;
    attempt.response_snippet = outcome.snippet;
    attempt.error = outcome.error;
    attempt.response_time_ms = Math.round(performance.now() - started);
    const succeeded = attempt.error === null;
    attempt.status = succeeded ? 'succeeded' : 'failed';
    endpoint.last_delivery_at = attempt.attempted_at;
    if (retry) this.recordOutcome(endpoint, attempt, envelope, succeeded);
    this.ctx.markDirty();
  }

  private recordOutcome(
    endpoint: WebhookEndpoint,
    attempt: DeliveryAttempt,
    envelope: EventEnvelope,
    ok: boolean,
  ) {
    const now = this.ctx.clock.now();
    if (ok) {
      endpoint.consecutive_failures = 0;
      endpoint.failingSinceMs = null;
      if (endpoint.status === 'failing') endpoint.status = 'active';
      return;
    }
    endpoint.consecutive_failures++;
    endpoint.failingSinceMs ??= now;
    if (endpoint.status === 'active') endpoint.status = 'failing';
    const offset = retryOffsetMs(attempt.attempt + 1, this.ctx.timeScale);
    if (offset === null) return;
    const due = Math.max(now, attempt.scheduleStartMs + offset);
    attempt.next_retry_at = new Date(due).toISOString();
    this.queueAttempt(endpoint, envelope, attempt.attempt + 1, due, attempt.scheduleStartMs);
  }

  /** Keeps the attempt log bounded: drops the oldest finished attempts beyond MAX_DELIVERIES_KEPT. */
  private pruneDeliveries(): void {
    const deliveries = this.ctx.state.deliveries;
    if (deliveries.size <= MAX_DELIVERIES_KEPT * 1.1) return;
    for (const [id, attempt] of deliveries) {
      if (deliveries.size <= MAX_DELIVERIES_KEPT) break;
      if (attempt.status !== 'pending') deliveries.delete(id);
    }
  }

  /** An attempt scheduled inside the failure window still gets its chance before the endpoint is disabled. */
  private hasAttemptDueBy(webhookId: string, deadline: number): boolean {
    for (const attempt of this.ctx.state.deliveries.values()) {
      if (attempt.webhook_id === webhookId && attempt.status === 'pending' && attempt.dueAtMs <= deadline)
        return true;
    }
    return false;
  }

  private disableExpired(now: number): void {
    const window = DISABLE_AFTER_MS / this.ctx.timeScale;
    for (const endpoint of this.ctx.state.webhooks.values()) {
      if (endpoint.status !== 'failing' || endpoint.failingSinceMs === null) continue;
      const deadline = endpoint.failingSinceMs + window;
      if (now < deadline || this.busy.has(endpoint.id) || this.hasAttemptDueBy(endpoint.id, deadline))
        continue;
      endpoint.status = 'disabled';
      this.ctx.markDirty();
      this.enqueue({
        type: 'webhook.disabled',
        accountId: endpoint.accountId,
        data: { object: 'webhook', id: endpoint.id, url: endpoint.url },
      });
    }
  }
}
