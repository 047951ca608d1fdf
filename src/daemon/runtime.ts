/**
 * The long-running daemon: scheduler, webhook receiver and dispatcher, operations server, connector checks and
 * housekeeping around the jobs of one environment.
 */
import type { LoadedConfig } from '../config/index.js';
import { pruneState, runJob, type JobContext, type RunResult } from '../engine/index.js';
import {
  ApiHealth,
  createOpsMetrics,
  createOpsServer,
  DEFAULT_READINESS_POLICY,
  evaluateReadiness,
  type OpsMetrics,
  type OpsProviders,
} from '../ops/index.js';
import { createOpsAccessCheck } from '../ops/auth.js';
import { readServerTls, type ServerTlsFiles } from '../ops/tls.js';
import { watchServerTls } from '../ops/tls-reload.js';
import { createWebhookListener } from '../ops/webhook-listener.js';
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
import { ConnectorHealth } from './connector-health.js';
import { packageVersion } from './version.js';
import { errorThresholdFor } from './error-threshold.js';
import { explainStartError } from './start-errors.js';
import { deadLetterStatus, recordOutcomeLabel } from './health-views.js';

/**
 * A cheap authenticated call keeps "API reached" current between runs: once no call has succeeded for 5 minutes
 * (spares small plans' daily quotas), every minute while the key is refused or the API unreached, so a fix shows
 * within a minute.
 */
const API_PROBE_QUIET_MS = 5 * 60_000;
const API_PROBE_TICK_MS = 60_000;
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

function tlsFilesOf(
  tls: { cert_file: string; key_file: string; ca_file?: string | undefined } | undefined,
): ServerTlsFiles | undefined {
  return tls === undefined
    ? undefined
    : { certFile: tls.cert_file, keyFile: tls.key_file, caFile: tls.ca_file };
}

/** Starts the daemon; a start error names the config key to change and how (port in use, state locked...). */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  try {
    return await launchDaemon(options);
  } catch (error) {
    throw explainStartError(error, options.loaded, options.port);
  }
}

async function launchDaemon(options: DaemonOptions): Promise<Daemon> {
  // Unusable certificate files stop the start here, naming the key, before anything is opened.
  const tlsFiles = tlsFilesOf(options.loaded.config.server.tls);
  const serverTls = tlsFiles === undefined ? undefined : readServerTls(tlsFiles);
  const webhookListenerConfig = options.loaded.config.server.webhooks;
  const webhookTlsFiles = tlsFilesOf(webhookListenerConfig?.tls);
  const webhookTls =
    webhookTlsFiles === undefined ? undefined : readServerTls(webhookTlsFiles, 'server.webhooks.tls');
  // Gauges read the state store and the health model at scrape time; filled in once they exist.
  const gaugeSources: {
    state?: StateStore;
    clock?: Clock;
    providers?: OpsProviders;
    secrets?: () => readonly string[];
  } = {};
  const metrics = createOpsMetrics({
    version: packageVersion(),
    outboxDepth: () => gaugeSources.state?.outbox.depth().pending ?? 0,
    deadLettersOpen: () => gaugeSources.state?.deadLetters.countOpenByFlow() ?? {},
    health: async () => {
      const { providers, clock } = gaugeSources;
      if (providers === undefined || clock === undefined) throw new Error('the daemon is still starting');
      const now = clock.now();
      const [readiness, jobs, connectors] = await Promise.all([
        evaluateReadiness(providers, now, DEFAULT_READINESS_POLICY, gaugeSources.secrets?.() ?? []),
        providers.jobs(),
        providers.connectors(),
      ]);
      return { readiness, jobs, connectors };
    },
    // Seconds since each stream last checkpointed: a stream that stops advancing shows here.
    lagSeconds: () => {
      const state = gaugeSources.state;
      if (state === undefined) return {};
      const now = gaugeSources.clock?.now() ?? Date.now();
      return Object.fromEntries(state.cursors.list().map((c) => [c.stream, (now - c.updatedAt) / 1000]));
    },
  });
  const apiHealth = new ApiHealth();
  // Filled once the state store is open; the logger reads it to scrub webhook secrets kept there.
  const webhookSecrets: { store?: WebhookSecretStore } = {};

  const env = await buildEnvironment({
    loaded: options.loaded,
    registries: options.registries,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    extraSecrets: () => webhookSecrets.store?.activeSecrets() ?? [],
    hooks: {
      onApiCall: (side, event) => {
        metrics.apiCalls.inc({
          route: event.route,
          status: String(event.status ?? event.errorCode ?? 'error'),
        });
        if (event.rateLimitWaitMs > 0) {
          metrics.rateLimitWaits.inc({ route: event.route });
          metrics.rateLimitWaitSeconds.inc({ route: event.route }, event.rateLimitWaitMs / 1000);
        }
        const refused = apiHealth.record(
          {
            side,
            method: event.method,
            route: event.route,
            status: event.status,
            errorCode: event.errorCode,
          },
          env.clock.now(),
        );
        if (refused !== null) {
          env.logger.error(
            {
              code: refused.code,
              status: refused.status,
              call: refused.call,
              side: refused.side,
              configKey: refused.configKey,
            },
            `the API refused the ${refused.side} key (${refused.status} ${refused.code}): ${refused.fix} (${refused.configKey})`,
          );
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
  const startedAt = clock.now();
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
      errorThreshold: errorThresholdFor(config, built.config),
    };
    const started = clock.now();
    const result = await runJob(preflight.guard(name, built.job), ctx);
    metrics.runs.inc({ sync_job: name, outcome: result.outcome });
    metrics.runDuration.observe({ sync_job: name }, (clock.now() - started) / 1000);
    for (const [kind, count] of Object.entries(result.counts)) {
      if (count > 0) metrics.records.inc({ sync_job: name, outcome: recordOutcomeLabel(kind) }, count);
    }
    if (result.outcome === 'failed') metrics.errors.inc({ sync_job: name, kind: 'run_failed' });
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

  const connectorHealth = new ConnectorHealth(env.connectors, clock, logger);

  const providers: OpsProviders = {
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
      ...(apiHealth.lastReachedAt === undefined ? {} : { lastReachedAt: apiHealth.lastReachedAt }),
      ...(apiHealth.lastError === undefined ? {} : { lastError: apiHealth.lastError }),
      credentialFailures: apiHealth.credentialFailures(),
    }),
    connectors: () => connectorHealth.results(),
    jobs: () =>
      jobStatuses({
        jobs: [...env.jobs.entries()].map(([name, built]) => [name, built.config] as const),
        state,
        defaultTimezone: config.timezone,
        now: clock.now(),
        isRunning: (job) => scheduler.isRunning(job),
        nextRuns: scheduler.nextRuns(),
        watchingSince: startedAt,
        preflightError: (job) => preflight.reason(job),
      }),
    outbox: () => state.outbox.depth(),
    deadLetters: () => deadLetterStatus(state),
    info: () => ({ version: packageVersion(), timezone: config.timezone, startedAt }),
  };
  gaugeSources.providers = providers;
  gaugeSources.secrets = env.secrets;

  const access = createOpsAccessCheck(
    {
      token: config.server.auth?.token,
      username: config.server.auth?.username,
      password: config.server.auth?.password,
      webhookAllowCidrs: config.server.webhooks?.allow_cidrs ?? [],
    },
    config.server.webhook_path,
  );
  const webhookPort = webhookListenerConfig?.port;
  const webhookListener =
    webhookPort === undefined
      ? undefined
      : createWebhookListener({
          host: webhookListenerConfig?.host ?? config.server.host,
          port: webhookPort,
          path: config.server.webhook_path,
          receiver,
          tls: webhookTls,
          access,
        });
  const ops = createOpsServer({
    host: config.server.host,
    port: options.port ?? config.server.port,
    tls: serverTls,
    access,
    metrics,
    // With a separate webhook listener the webhook path is served there only.
    ...(webhookListener === undefined ? { webhook: { path: config.server.webhook_path, receiver } } : {}),
    knownSecrets: env.secrets,
    clock,
    logger,
    providers,
  });

  // Background loops run on the injected clock (a fake-clock soak run prunes too) and end with this signal.
  const background = new AbortController();
  let listening: { port: number; url: string };
  let stopTlsWatch = (): void => undefined;
  try {
    listening = await ops.listen();
    if (tlsFiles !== undefined && 'setSecureContext' in ops.server) {
      stopTlsWatch = watchServerTls(ops.server, tlsFiles, { logger });
    }
    const webhookBase = webhookListener === undefined ? listening.url : (await webhookListener.listen()).url;
    if (
      webhookListener !== undefined &&
      webhookTlsFiles !== undefined &&
      'setSecureContext' in webhookListener.server
    ) {
      const stopOps = stopTlsWatch;
      const stopWebhooks = watchServerTls(webhookListener.server, webhookTlsFiles, { logger });
      stopTlsWatch = () => {
        stopOps();
        stopWebhooks();
      };
    }
    await connectorHealth.checkAll();
    const webhookUrl = `${webhookBase}${config.server.webhook_path}`;
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
      config.health.connector_check_interval,
      background.signal,
      () => connectorHealth.checkAll(),
      (error) => logger.warn({ err: error }, 'connector checks failed'),
    );
    const probeIfDue = async (): Promise<void> => {
      const reached = apiHealth.lastReachedAt;
      const unhealthy = reached === undefined || apiHealth.credentialFailures().length > 0;
      if (unhealthy || clock.now() - reached >= API_PROBE_QUIET_MS) await probeApi();
    };
    every(clock, API_PROBE_TICK_MS, background.signal, probeIfDue, (error) =>
      logger.warn({ err: error }, 'API probe failed'),
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
        stopTlsWatch();
        // Webhook intake stops first, so every event answered 2xx has been dispatched while the scheduler still
        // takes triggers; then running jobs reach a checkpoint; then connections close, within a bound, so a
        // driver stuck on a lock cannot keep the process alive.
        await webhookListener?.close();
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
    stopTlsWatch();
    await webhookListener?.close().catch(() => undefined);
    await ops.close().catch(() => undefined);
    await inbox.close();
    await env.close();
    throw error;
  }
}
