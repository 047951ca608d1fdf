/**
 * The long-running daemon: scheduler, webhook receiver and dispatcher, operations server, connector checks and
 * housekeeping around the jobs of one environment.
 */
import type { LoadedConfig } from '../config/index.js';
import { pruneState, runJob, type JobContext, type RunResult } from '../engine/index.js';
import { createOpsMetrics, createOpsServer, type ConnectorCheck, type OpsMetrics } from '../ops/index.js';
import { Scheduler, type SchedulerTrigger } from '../scheduler/index.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from 'pino';
import type { StateStore } from '../state/index.js';
import {
  createWebhookReceiver,
  openDaemonInbox,
  WebhookDispatcher,
  WebhookSecretStore,
  type WebhookReceiver,
} from '../webhooks/index.js';
import type { Registries } from './builtin.js';
import { buildEnvironment, type Environment } from './environment.js';
import { jobStatuses } from './job-status.js';
import { PreflightGate } from './preflight.js';
import { registerEmbeddedWebhooks } from './embedded-webhooks.js';

const CONNECTOR_CHECK_INTERVAL_MS = 5 * 60_000;
const HOUSEKEEPING_INTERVAL_MS = 60 * 60_000;
const DEFAULT_JOB_BUDGET_MS = 15 * 60_000;
const CLOSE_TIMEOUT_MS = 10_000;

/** Runs `task` every `intervalMs` of the clock's time until `signal` aborts; a failing task does not stop it. */
function every(
  clock: Clock,
  intervalMs: number,
  signal: AbortSignal,
  task: () => unknown,
  onError: (error: unknown) => void,
): void {
  const loop = async (): Promise<void> => {
    while (!signal.aborted) {
      try {
        await clock.sleep(intervalMs, signal);
      } catch {
        return; // aborted: the daemon is stopping
      }
      try {
        await task();
      } catch (error) {
        onError(error); // the loop keeps its rhythm
      }
    }
  };
  void loop();
}

/** Resolves true when `work` settles within `ms`, false otherwise (the work is left to finish on its own). */
function withinTime(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(settled, settled);
  });
}

export interface DaemonOptions {
  loaded: LoadedConfig;
  registries: Registries;
  clock?: Clock;
  logger?: Logger;
  /** Override of server.port (0 picks a free port; tests and the demo use it). */
  port?: number;
  /** Skip the catch-up run at start (the CLI's `run --no-catch-up`). */
  catchUp?: boolean;
}

export interface Daemon {
  readonly env: Environment;
  readonly opsUrl: string;
  readonly webhookUrl: string;
  readonly metrics: OpsMetrics;
  runNow(job: string, trigger?: SchedulerTrigger): Promise<void>;
  /** Stops taking work, lets running jobs reach a checkpoint (up to timeoutMs), then closes everything. */
  stop(timeoutMs?: number): Promise<{ unfinished: string[] }>;
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  // Gauges read the state store at scrape time; filled in once it is open.
  const gaugeSources: { state?: StateStore; clock?: Clock } = {};
  const metrics = createOpsMetrics({
    outboxDepth: () => gaugeSources.state?.outbox.depth().pending ?? 0,
    deadLettersOpen: () => gaugeSources.state?.deadLetters.countOpen() ?? 0,
    // Seconds since each stream last checkpointed: a stream that stops advancing shows here.
    lagSeconds: () => {
      const state = gaugeSources.state;
      if (state === undefined) return {};
      const now = gaugeSources.clock?.now() ?? Date.now();
      return Object.fromEntries(state.cursors.list().map((c) => [c.stream, (now - c.updatedAt) / 1000]));
    },
  });
  let apiLastReachedAt: number | undefined;
  let apiLastError: string | undefined;
  // Filled once the state store is open; the logger reads it to scrub webhook secrets kept there.
  const webhookSecrets: { store?: WebhookSecretStore } = {};

  const env = await buildEnvironment({
    loaded: options.loaded,
    registries: options.registries,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    extraSecrets: () => webhookSecrets.store?.activeSecrets() ?? [],
    hooks: {
      onApiCall: (_side, event) => {
        metrics.apiCalls.inc({
          route: event.route,
          status: String(event.status ?? event.errorCode ?? 'error'),
        });
        if (event.rateLimitWaitMs > 0) {
          metrics.rateLimitWaits.inc({ route: event.route });
          metrics.rateLimitWaitSeconds.inc({ route: event.route }, event.rateLimitWaitMs / 1000);
        }
        if (event.status !== null) {
          apiLastReachedAt = env.clock.now();
          apiLastError = undefined;
        } else {
          apiLastError = event.errorCode ?? 'unreachable';
        }
      },
      onDrift: (event) => metrics.schemaDrift.inc({ resource: event.resource, kind: event.kind }),
    },
  });
  const { config } = env.loaded;
  const { state, logger, clock } = env;
  gaugeSources.state = state;
  gaugeSources.clock = clock;
  // Runs cut off by a crash or kill have no end; record them as such before anything new starts.
  state.runs.closeInterrupted();
  const secrets = new WebhookSecretStore(state.kv, () => clock.now());
  webhookSecrets.store = secrets;
  // Jobs whose statements fail the pre-flight are held back with the reason; the others run.
  const preflight = await PreflightGate.open(
    { file: env.loaded.file, connectors: env.connectors, jobs: env.jobs },
    logger,
  );

  const runOne = async (name: string, trigger: SchedulerTrigger, signal: AbortSignal): Promise<RunResult> => {
    const built = env.jobs.get(name);
    if (built === undefined) throw new Error(`unknown job ${name}`);
    const ctx: JobContext = {
      signal,
      budgetMs: built.config.budget ?? DEFAULT_JOB_BUDGET_MS,
      dryRun: false,
      logger,
      clock,
      state,
      trigger,
    };
    const result = await runJob(preflight.guard(name, built.job), ctx);
    metrics.runs.inc({ job: name, outcome: result.outcome });
    for (const [kind, count] of Object.entries(result.counts)) {
      if (count > 0) metrics.recordsProcessed.inc({ job: name, stream: kind }, count);
    }
    if (result.outcome === 'failed') metrics.errors.inc({ job: name, kind: 'run_failed' });
    return result;
  };

  const scheduler = new Scheduler({
    jobs: [...env.jobs.entries()].map(([name, built]) => ({
      name,
      schedule: built.config.schedule,
      timezone: built.config.timezone,
      jitterMs: built.config.jitter,
      enabled: built.config.enabled,
    })),
    run: runOne,
    clock,
    timezone: config.timezone,
    lastStart: options.catchUp === false ? () => clock.now() : (job) => state.runs.last(job)?.startedAt,
    onEvent: (event) => logger.debug({ event }, 'scheduler'),
  });

  // Its own connection when it can: commits are synced off the event loop, one sync per group of events.
  const inbox = openDaemonInbox(state, clock);
  const mapping: Record<string, string[]> = {};
  for (const [name, built] of env.jobs) {
    for (const type of built.flow.triggerEvents) (mapping[type] ??= []).push(name);
  }
  const dispatcher = new WebhookDispatcher({
    inbox,
    mapping,
    trigger: (job) => {
      scheduler
        .runNow(job, 'webhook')
        .catch((error: unknown) => logger.error({ err: error, job }, 'run failed'));
    },
    logger,
  });
  const receiver: WebhookReceiver = createWebhookReceiver({
    inbox,
    secrets: () => [...config.server.webhook_secrets, ...secrets.activeSecrets()],
    clock,
    maxBodyBytes: config.server.max_body_bytes,
    observer: metrics.webhookObserver,
    logger,
    onStored: () => dispatcher.kick(),
  });

  let connectorChecks: ConnectorCheck[] = [];
  const checkConnectors = async (): Promise<void> => {
    const results: ConnectorCheck[] = [];
    for (const [name, connector] of env.connectors) {
      try {
        const checks = await connector.check();
        const failed = checks.filter((check) => check.status === 'fail');
        results.push({
          name,
          ok: failed.length === 0,
          checkedAt: clock.now(),
          detail: failed.map((check) => `${check.name}: ${check.detail}`).join('; ') || 'ok',
        });
      } catch (error) {
        results.push({ name, ok: false, checkedAt: clock.now(), detail: String(error) });
      }
    }
    connectorChecks = results;
  };

  const ops = createOpsServer({
    host: config.server.host,
    port: options.port ?? config.server.port,
    metrics,
    webhook: { path: config.server.webhook_path, receiver },
    knownSecrets: env.secrets,
    clock,
    logger,
    providers: {
      checkStateWritable: () => {
        state.kv.set('daemon', 'heartbeat', clock.now());
        const inboxFailure = inbox.durabilityFailure();
        if (inboxFailure !== null) {
          throw new Error(
            `webhook inbox: a sync of its write-ahead log failed (${inboxFailure}); every webhook is refused with 503 until the daemon is restarted`,
          );
        }
      },
      api: () => ({
        baseUrl: env.endpoint.label,
        ...(apiLastReachedAt === undefined ? {} : { lastReachedAt: apiLastReachedAt }),
        ...(apiLastError === undefined ? {} : { lastError: apiLastError }),
      }),
      connectors: () => connectorChecks,
      jobs: () =>
        jobStatuses(
          env.jobs,
          state,
          config.timezone,
          clock.now(),
          (job) => scheduler.isRunning(job),
          scheduler.nextRuns(),
          (job) => preflight.reason(job),
        ),
      outbox: () => state.outbox.depth(),
      deadLetters: () => ({ open: state.deadLetters.countOpen() }),
    },
  });

  // Background loops run on the injected clock (a fake-clock soak run prunes too) and end with this signal.
  const background = new AbortController();
  let listening: { port: number; url: string };
  try {
    listening = await ops.listen();
    await checkConnectors();
    const webhookUrl = `${listening.url}${config.server.webhook_path}`;
    if (env.endpoint.embedded) {
      await registerEmbeddedWebhooks(env, webhookUrl, secrets, mapping);
    }
    // A cheap call keeps "API reached recently" true between nightly runs, and tells when it stops being so.
    const probeApi = async (): Promise<void> => {
      for (const api of env.apis.values()) {
        await api.account.me().catch((error: unknown) => logger.warn({ err: error }, 'GET /me failed'));
      }
    };
    await probeApi();
    await dispatcher.dispatchPending();
    scheduler.start();
    const housekeeping = (): void => {
      const pruned = pruneState(state);
      logger.debug({ pruned }, 'state housekeeping');
    };
    housekeeping();
    every(
      clock,
      CONNECTOR_CHECK_INTERVAL_MS,
      background.signal,
      async () => {
        await checkConnectors();
        await probeApi();
      },
      (error) => logger.warn({ err: error }, 'connector and API checks failed'),
    );
    every(clock, HOUSEKEEPING_INTERVAL_MS, background.signal, housekeeping, (error) =>
      logger.warn({ err: error }, 'state housekeeping failed'),
    );
    logger.info(
      { ops: listening.url, api: env.endpoint.label, jobs: [...env.jobs.keys()] },
      'daemon started',
    );

    return {
      env,
      opsUrl: listening.url,
      webhookUrl,
      metrics,
      runNow: (job, trigger = 'cli') => scheduler.runNow(job, trigger),
      stop: async (timeoutMs = 30_000) => {
        background.abort();
        // Webhook intake stops first, so every event answered 2xx has been dispatched while the scheduler still
        // takes triggers; then running jobs reach a checkpoint; then connections close, within a bound, so a
        // driver stuck on a lock cannot keep the process alive.
        await ops.close();
        await receiver.drain();
        await dispatcher.idle();
        await inbox.close();
        const result = await scheduler.stop(timeoutMs);
        const closed = await withinTime(env.close(), CLOSE_TIMEOUT_MS);
        if (!closed) logger.warn({ timeoutMs: CLOSE_TIMEOUT_MS }, 'connections did not close in time');
        logger.info({ unfinished: result.unfinished }, 'daemon stopped');
        return result;
      },
    };
  } catch (error) {
    background.abort();
    await ops.close().catch(() => undefined);
    await inbox.close();
    await env.close();
    throw error;
  }
}
