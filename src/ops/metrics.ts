import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RejectReason, WebhookObserver } from '../webhooks/receiver.js';
import type { ConnectorCheck, JobStatus } from './providers.js';
import type { Readiness } from './readiness.js';

/** What the health gauges show, from the same model as /readyz and the status page. */
export interface HealthReading {
  readiness: Readiness;
  jobs: readonly JobStatus[];
  connectors: readonly ConnectorCheck[];
}

export interface MetricSources {
  /** Read at scrape time; undefined when the state cannot be read (the gauge keeps its last value). */
  outboxDepth?: () => number | undefined;
  /** Open dead letters per flow; undefined when the state cannot be read. */
  deadLettersOpen?: () => Readonly<Record<string, number>> | undefined;
  /** Seconds each stream's cursor is behind now; undefined when the state cannot be read. */
  lagSeconds?: () => Readonly<Record<string, number>> | undefined;
  health?: () => Promise<HealthReading>;
  /** 1 while this instance leads (runs the jobs), 0 on a standby; a single instance always leads. */
  leader?: () => number;
  /** The running version, for supply_sync_build_info. */
  version?: string;
  /** Node's process metrics (CPU, memory, event loop); on by default. */
  processMetrics?: boolean;
}

/**
 * Per-job labels are named `sync_job`, never `job`: Prometheus sets `job` on every target, and a clashing label
 * in a scrape is renamed `exported_job`.
 */
export type JobLabel = 'sync_job';

export interface OpsMetrics {
  /** Per-instance registry: nothing goes to prom-client's global default registry. */
  registry: Registry;
  runs: Counter<JobLabel | 'outcome'>;
  runDuration: Histogram<JobLabel>;
  records: Counter<JobLabel | 'outcome'>;
  errors: Counter<JobLabel | 'kind'>;
  lagSeconds: Gauge<'stream'>;
  outboxDepth: Gauge;
  deadLettersOpen: Gauge<'flow'>;
  webhooksReceived: Counter<'type'>;
  webhooksRejected: Counter<'reason'>;
  webhooksDuplicate: Counter<'type'>;
  apiCalls: Counter<'route' | 'status'>;
  rateLimitWaits: Counter<'route'>;
  rateLimitWaitSeconds: Counter<'route'>;
  schemaDrift: Counter<'resource' | 'kind'>;
  /** Notification tries by channel and outcome (sent, retry, failed). */
  notifications: Counter<'channel' | 'outcome'>;
  /** Plugs the webhook receiver's counters into this registry. */
  webhookObserver: WebhookObserver;
}

const PREFIX = 'supply_sync_';
const UNLINTABLE_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];
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
      const depth = sources.outboxDepth?.();
      if (depth !== undefined) this.set(depth);
    },
  });
  const deadLettersOpen = new Gauge<'flow'>({
    name: `${PREFIX}dead_letters_open`,
    help: 'Dead letters waiting for a retry or a discard, by flow',
    labelNames: ['flow'],
    registers,
    collect() {
      const open = sources.deadLettersOpen?.();
      if (open === undefined) return;
      this.reset();
      for (const [flow, count] of Object.entries(open)) this.set({ flow }, count);
    },
  });
  if (sources.processMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters, which `promtool check metrics` rejects; each is the sum of the per-type gauge
    // of the same name without "_total" (nodejs_active_handles{type} and so on), which stays.
    for (const name of UNLINTABLE_DEFAULT_METRICS) registry.removeSingleMetric(name);
  }
  new Gauge<'version'>({
    name: `${PREFIX}build_info`,
    help: 'Always 1; the running version is in the label',
    labelNames: ['version'],
    registers,
  }).set({ version: sources.version ?? 'unknown' }, 1);
  const leader = sources.leader;
  if (leader !== undefined) {
    new Gauge({
      name: `${PREFIX}leader`,
      help: '1 while this instance leads and runs the jobs, 0 while it stands by',
      registers,
      collect() {
        this.set(leader());
      },
    });
  }
  registerHealthGauges(registry, sources.health);

  const webhooksReceived = counter('webhooks_received_total', 'Verified webhook events stored', ['type']);
  const webhooksRejected = counter('webhooks_rejected_total', 'Webhook requests rejected, by reason', [
    'reason',
  ]);
  const webhooksDuplicate = counter('webhooks_duplicate_total', 'Webhook events already stored', ['type']);
  const typeLabel = (type: string): string => (EVENT_TYPE_LABEL.test(type) ? type : 'other');

  return {
    registry,
    runs: counter('runs_total', 'Job runs, by job and outcome', ['sync_job', 'outcome']),
    runDuration: new Histogram<JobLabel>({
      name: `${PREFIX}run_duration_seconds`,
      help: 'How long job runs take, by job',
      labelNames: ['sync_job'],
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers,
    }),
    records: counter(
      'records_total',
      'Records handled by job runs, by job and outcome (written, dead_lettered...)',
      ['sync_job', 'outcome'],
    ),
    errors: counter('errors_total', 'Errors, by job and kind', ['sync_job', 'kind']),
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
    notifications: counter('notifications_total', 'Notification tries by channel and outcome', [
      'channel',
      'outcome',
    ]),
    webhookObserver: {
      received: (type: string) => webhooksReceived.inc({ type: typeLabel(type) }),
      rejected: (reason: RejectReason) => webhooksRejected.inc({ reason }),
      duplicate: (type: string) => webhooksDuplicate.inc({ type: typeLabel(type) }),
    },
  };
}

/**
 * Gauges read at scrape time from the health model: readiness, each connector up or down, each job's last run,
 * last success and whether readiness counts it as healthy.
 */
function registerHealthGauges(registry: Registry, health: MetricSources['health']): void {
  if (health === undefined) return;
  const registers = [registry];
  let reading: Promise<HealthReading> | undefined;
  // One read of the model per scrape, shared by the gauges below.
  const read = (): Promise<HealthReading> => {
    reading ??= health().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const seconds = (ms: number): number => ms / 1000;
  new Gauge({
    name: `${PREFIX}ready`,
    help: '1 when /readyz answers 200, 0 when it answers 503',
    registers,
    async collect() {
      this.set((await read()).readiness.ready ? 1 : 0);
    },
  });
  new Gauge<'connector'>({
    name: `${PREFIX}connector_up`,
    help: "1 when the connector's last check passed, 0 when it failed",
    labelNames: ['connector'],
    registers,
    async collect() {
      const { connectors } = await read();
      this.reset();
      for (const c of connectors) this.set({ connector: c.name }, c.ok ? 1 : 0);
    },
  });
  new Gauge<JobLabel>({
    name: `${PREFIX}job_healthy`,
    help: '1 when readiness counts the job as healthy (fresh, not due or due), 0 when failing or overdue',
    labelNames: ['sync_job'],
    registers,
    async collect() {
      const { readiness } = await read();
      this.reset();
      for (const check of readiness.checks) {
        if (check.check === 'job' && check.name !== undefined)
          this.set({ sync_job: check.name }, check.ok ? 1 : 0);
      }
    },
  });
  new Gauge<JobLabel>({
    name: `${PREFIX}job_paused`,
    help: '1 while an operator has paused the job (no scheduled, catch-up or webhook runs), else 0',
    labelNames: ['sync_job'],
    registers,
    async collect() {
      const { jobs } = await read();
      this.reset();
      for (const job of jobs) this.set({ sync_job: job.name }, job.paused === undefined ? 0 : 1);
    },
  });
  new Gauge<JobLabel>({
    name: `${PREFIX}job_paused_since_timestamp_seconds`,
    help: 'When an operator paused the job, in Unix seconds; only for paused jobs (who and why: /readyz, /status)',
    labelNames: ['sync_job'],
    registers,
    async collect() {
      const { jobs } = await read();
      this.reset();
      for (const job of jobs)
        if (job.paused !== undefined) this.set({ sync_job: job.name }, seconds(job.paused.since));
    },
  });
  new Gauge<JobLabel>({
    name: `${PREFIX}job_last_run_timestamp_seconds`,
    help: 'Start of the last run of each job, in Unix seconds',
    labelNames: ['sync_job'],
    registers,
    async collect() {
      const { jobs } = await read();
      this.reset();
      for (const job of jobs)
        if (job.lastRunAt !== undefined) this.set({ sync_job: job.name }, seconds(job.lastRunAt));
    },
  });
  new Gauge<JobLabel>({
    name: `${PREFIX}job_last_success_timestamp_seconds`,
    help: 'End of the last run of each job that made progress (ok or partial), in Unix seconds',
    labelNames: ['sync_job'],
    registers,
    async collect() {
      const { jobs } = await read();
      this.reset();
      for (const job of jobs) {
        if (job.lastSuccessAt !== undefined) this.set({ sync_job: job.name }, seconds(job.lastSuccessAt));
      }
    },
  });
}
