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

type Registers = Registry[];
type Reading<T> = T | undefined | Promise<T | undefined>;

/** A gauge read at scrape time; undefined keeps its last value. */
function scrapedGauge(registers: Registers, name: string, help: string, value: () => Reading<number>): Gauge {
  return new Gauge({
    name: PREFIX + name,
    help,
    registers,
    async collect() {
      const current = await value();
      if (current !== undefined) this.set(current);
    },
  });
}

/**
 * A gauge with one label, refilled at scrape time from `values` (label value and number); undefined keeps the
 * last values, anything else replaces them all.
 */
function labelledGauge<L extends string>(
  registers: Registers,
  name: string,
  help: string,
  label: L,
  values: () => Reading<Iterable<readonly [string, number]>>,
): Gauge<L> {
  return new Gauge<L>({
    name: PREFIX + name,
    help,
    labelNames: [label],
    registers,
    async collect() {
      const current = await values();
      if (current === undefined) return;
      this.reset();
      for (const [value, count] of current) this.set({ [label]: value } as Partial<Record<L, string>>, count);
    },
  });
}

const entriesOf = (record: Readonly<Record<string, number>> | undefined) =>
  record === undefined ? undefined : Object.entries(record);

/** Node's process metrics on a registry: one per process (each call starts an event-loop monitor of its own). */
export function processMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which `promtool check metrics` rejects; each is the sum of the per-type gauge
  // of the same name without "_total" (nodejs_active_handles{type} and so on), which stays.
  for (const name of UNLINTABLE_DEFAULT_METRICS) registry.removeSingleMetric(name);
}

/** The build and leadership gauges. */
function instanceGauges(registers: Registers, sources: MetricSources): void {
  new Gauge<'version'>({
    name: `${PREFIX}build_info`,
    help: 'Always 1; the running version is in the label',
    labelNames: ['version'],
    registers,
  }).set({ version: sources.version ?? 'unknown' }, 1);
  const leader = sources.leader;
  if (leader !== undefined) {
    scrapedGauge(
      registers,
      'leader',
      '1 while this instance leads and runs the jobs, 0 while it stands by',
      leader,
    );
  }
}

type WebhookCounters = Pick<
  OpsMetrics,
  'webhooksReceived' | 'webhooksRejected' | 'webhooksDuplicate' | 'webhookObserver'
>;

function webhookCounters(counter: CounterMaker): WebhookCounters {
  const webhooksReceived = counter('webhooks_received_total', 'Verified webhook events stored', ['type']);
  const webhooksRejected = counter('webhooks_rejected_total', 'Webhook requests rejected, by reason', [
    'reason',
  ]);
  const webhooksDuplicate = counter('webhooks_duplicate_total', 'Webhook events already stored', ['type']);
  const typeLabel = (type: string): string => (EVENT_TYPE_LABEL.test(type) ? type : 'other');
  return {
    webhooksReceived,
    webhooksRejected,
    webhooksDuplicate,
    webhookObserver: {
      received: (type: string) => webhooksReceived.inc({ type: typeLabel(type) }),
      rejected: (reason: RejectReason) => webhooksRejected.inc({ reason }),
      duplicate: (type: string) => webhooksDuplicate.inc({ type: typeLabel(type) }),
    },
  };
}

type CounterMaker = <L extends string>(name: string, help: string, labelNames: readonly L[]) => Counter<L>;

type RunCounters = Pick<OpsMetrics, 'runs' | 'runDuration' | 'records' | 'errors'>;

function runCounters(counter: CounterMaker, registers: Registers): RunCounters {
  return {
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
  };
}

type ApiCounters = Pick<OpsMetrics, 'apiCalls' | 'rateLimitWaits' | 'rateLimitWaitSeconds' | 'schemaDrift'>;

function apiCounters(counter: CounterMaker): ApiCounters {
  return {
    apiCalls: counter('api_calls_total', 'API calls, by route template and HTTP status', ['route', 'status']),
    rateLimitWaits: counter('rate_limit_waits_total', 'Waits imposed by rate limits', ['route']),
    rateLimitWaitSeconds: counter('rate_limit_wait_seconds_total', 'Seconds spent waiting on rate limits', [
      'route',
    ]),
    schemaDrift: counter('schema_drift_total', 'Unknown enum values or fields seen in API payloads', [
      'resource',
      'kind',
    ]),
  };
}

export function createOpsMetrics(sources: MetricSources = {}): OpsMetrics {
  const registry = new Registry();
  const registers = [registry];
  const counter: CounterMaker = (name, help, labelNames) =>
    new Counter({ name: PREFIX + name, help, labelNames, registers });

  const lagSeconds = labelledGauge(
    registers,
    'lag_seconds',
    'Seconds between now and the stream cursor',
    'stream',
    () => entriesOf(sources.lagSeconds?.()),
  );
  const outboxDepth = scrapedGauge(registers, 'outbox_depth', 'API writes waiting in the outbox', () =>
    sources.outboxDepth?.(),
  );
  const deadLettersOpen = labelledGauge(
    registers,
    'dead_letters_open',
    'Dead letters waiting for a retry or a discard, by flow',
    'flow',
    () => entriesOf(sources.deadLettersOpen?.()),
  );
  if (sources.processMetrics !== false) processMetrics(registry);
  instanceGauges(registers, sources);
  registerHealthGauges(registers, sources.health);
  const webhooks = webhookCounters(counter);
  return {
    registry,
    ...runCounters(counter, registers),
    lagSeconds,
    outboxDepth,
    deadLettersOpen,
    ...webhooks,
    ...apiCounters(counter),
    notifications: counter('notifications_total', 'Notification tries by channel and outcome', [
      'channel',
      'outcome',
    ]),
  };
}

/** One read of the health model per scrape, shared by the gauges that show it. */
function sharedReading(health: () => Promise<HealthReading>): () => Promise<HealthReading> {
  let reading: Promise<HealthReading> | undefined;
  return () => {
    reading ??= health().finally(() => {
      reading = undefined;
    });
    return reading;
  };
}

const seconds = (ms: number): number => ms / 1000;

/** Each job's value, leaving out the jobs `value` has none for. */
function perJob(
  jobs: readonly JobStatus[],
  value: (job: JobStatus) => number | undefined,
): [string, number][] {
  return jobs.flatMap((job) => {
    const number = value(job);
    return number === undefined ? [] : [[job.name, number] as [string, number]];
  });
}

/**
 * Gauges read at scrape time from the health model: readiness, each connector up or down, each job's last run,
 * last success and whether readiness counts it as healthy.
 */
function registerHealthGauges(registers: Registers, health: MetricSources['health']): void {
  if (health === undefined) return;
  const read = sharedReading(health);
  const jobGauge = (name: string, help: string, value: (job: JobStatus) => number | undefined) =>
    labelledGauge(registers, name, help, 'sync_job', async () => perJob((await read()).jobs, value));
  scrapedGauge(registers, 'ready', '1 when /readyz answers 200, 0 when it answers 503', async () =>
    (await read()).readiness.ready ? 1 : 0,
  );
  labelledGauge(
    registers,
    'connector_up',
    "1 when the connector's last check passed, 0 when it failed",
    'connector',
    async () => (await read()).connectors.map((c) => [c.name, c.ok ? 1 : 0] as const),
  );
  labelledGauge(
    registers,
    'job_healthy',
    '1 when readiness counts the job as healthy (fresh, not due or due), 0 when failing or overdue',
    'sync_job',
    async () =>
      (await read()).readiness.checks.flatMap((check) =>
        check.check === 'job' && check.name !== undefined ? [[check.name, check.ok ? 1 : 0] as const] : [],
      ),
  );
  jobGauge(
    'job_paused',
    '1 while an operator has paused the job (no scheduled, catch-up or webhook runs), else 0',
    (job) => (job.paused === undefined ? 0 : 1),
  );
  jobGauge(
    'job_paused_since_timestamp_seconds',
    'When an operator paused the job, in Unix seconds; only for paused jobs (who and why: /readyz, /status)',
    (job) => (job.paused === undefined ? undefined : seconds(job.paused.since)),
  );
  jobGauge('job_last_run_timestamp_seconds', 'Start of the last run of each job, in Unix seconds', (job) =>
    job.lastRunAt === undefined ? undefined : seconds(job.lastRunAt),
  );
  jobGauge(
    'job_last_success_timestamp_seconds',
    'End of the last run of each job that made progress (ok or partial), in Unix seconds',
    (job) => (job.lastSuccessAt === undefined ? undefined : seconds(job.lastSuccessAt)),
  );
}
