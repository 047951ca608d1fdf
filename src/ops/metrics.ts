import { Counter, Gauge, Registry } from 'prom-client';
import type { RejectReason, WebhookObserver } from '../webhooks/receiver.js';

export interface MetricSources {
  /** Read at scrape time. */
  outboxDepth?: () => number;
  deadLettersOpen?: () => number;
  /** Seconds each stream's cursor is behind now. */
  lagSeconds?: () => Readonly<Record<string, number>>;
}

export interface OpsMetrics {
  /** Per-instance registry: nothing goes to prom-client's global default registry. */
  registry: Registry;
  runs: Counter<'job' | 'outcome'>;
  recordsProcessed: Counter<'job' | 'stream'>;
  errors: Counter<'job' | 'kind'>;
  lagSeconds: Gauge<'stream'>;
  outboxDepth: Gauge;
  deadLettersOpen: Gauge;
  webhooksReceived: Counter<'type'>;
  webhooksRejected: Counter<'reason'>;
  webhooksDuplicate: Counter<'type'>;
  apiCalls: Counter<'route' | 'status'>;
  rateLimitWaits: Counter<'route'>;
  rateLimitWaitSeconds: Counter<'route'>;
  schemaDrift: Counter<'resource' | 'kind'>;
  /** Plugs the webhook receiver's counters into this registry. */
  webhookObserver: WebhookObserver;
}

const PREFIX = 'supply_sync_';
/** Event types are label values; anything not shaped like a catalog type is folded so labels stay bounded. */
const EVENT_TYPE_LABEL = /^[a-z][a-z_]{0,40}(\.[a-z_]{1,40})?$/;

export function createOpsMetrics(sources: MetricSources = {}): OpsMetrics {
  const registry = new Registry();
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name: PREFIX + name, help, labelNames, registers });

  const lagSeconds = new Gauge<'stream'>({
    name: `${PREFIX}lag_seconds`,
    help: 'Seconds between now and the stream cursor',
    labelNames: ['stream'],
    registers,
    collect() {
      const lag = sources.lagSeconds?.();
      if (lag === undefined) return;
      this.reset();
      for (const [stream, seconds] of Object.entries(lag)) this.set({ stream }, seconds);
    },
  });
  const outboxDepth = new Gauge({
    name: `${PREFIX}outbox_depth`,
    help: 'API writes waiting in the outbox',
    registers,
    collect() {
      if (sources.outboxDepth) this.set(sources.outboxDepth());
    },
  });
  const deadLettersOpen = new Gauge({
    name: `${PREFIX}dead_letters_open`,
    help: 'Dead letters waiting for a retry or a discard',
    registers,
    collect() {
      if (sources.deadLettersOpen) this.set(sources.deadLettersOpen());
    },
  });

  const webhooksReceived = counter('webhooks_received_total', 'Verified webhook events stored', ['type']);
  const webhooksRejected = counter('webhooks_rejected_total', 'Webhook requests rejected, by reason', [
    'reason',
  ]);
  const webhooksDuplicate = counter('webhooks_duplicate_total', 'Webhook events already stored', ['type']);
  const typeLabel = (type: string): string => (EVENT_TYPE_LABEL.test(type) ? type : 'other');

  return {
    registry,
    runs: counter('runs_total', 'Job runs, by job and outcome', ['job', 'outcome']),
    recordsProcessed: counter('records_processed_total', 'Records processed, by job and stream', [
      'job',
      'stream',
    ]),
    errors: counter('errors_total', 'Errors, by job and kind', ['job', 'kind']),
    lagSeconds,
    outboxDepth,
    deadLettersOpen,
    webhooksReceived,
    webhooksRejected,
    webhooksDuplicate,
    apiCalls: counter('api_calls_total', 'API calls, by route template and HTTP status', ['route', 'status']),
    rateLimitWaits: counter('rate_limit_waits_total', 'Waits imposed by rate limits', ['route']),
    rateLimitWaitSeconds: counter('rate_limit_wait_seconds_total', 'Seconds spent waiting on rate limits', [
      'route',
    ]),
    schemaDrift: counter('schema_drift_total', 'Unknown enum values or fields seen in API payloads', [
      'resource',
      'kind',
    ]),
    webhookObserver: {
      received: (type: string) => webhooksReceived.inc({ type: typeLabel(type) }),
      rejected: (reason: RejectReason) => webhooksRejected.inc({ reason }),
      duplicate: (type: string) => webhooksDuplicate.inc({ type: typeLabel(type) }),
    },
  };
}
