/**
 * `supply-sync run`: the daemon as services, started in order and stopped in reverse by one lifecycle, also when
 * a start fails or is given up. Every instance keeps the state, takes webhooks into the inbox and serves health,
 * metrics and status; the scheduler, the webhook dispatch and housekeeping run the jobs, started last.
 */
import type { Logger } from 'pino';
import { apiKeySettingName, type LoadedConfig } from '../../config/index.js';
import { createOpsAccessCheck } from '../../ops/auth.js';
import { credentialsFromConfig } from '../../ops/credentials.js';
import { createOpsIdentity, type OpsIdentity } from '../../ops/ops-identity.js';
import type { LoginThrottle } from '../../ops/login-throttle.js';
import { newLocalToken, writeLocalToken, type LocalToken } from './local-token.js';
import {
  buildStatusSnapshot,
  DEFAULT_READINESS_POLICY,
  evaluateReadiness,
  type OpsMetrics,
  type OpsProviders,
  type StatusSnapshot,
} from '../../ops/index.js';
import type { SchedulerTrigger } from '../../scheduler/index.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import type { ClosableInbox, InboxStore } from '../../webhooks/index.js';
import type { PluginRegistry } from '../plugins/builtin.js';
import { CommandService } from '../control/command-service.js';
import { recordedReload, reloadOnLeadership, type RecordedReload } from '../control/config-reload.js';
import { createControlApi, type ControlHandler } from '../control/control-api.js';
import { pauseAware } from '../control/paused-runs.js';
import { jobRun } from '../jobs/job-run.js';
import { leadershipSettings } from './leadership-settings.js';
import { explainStartError } from './start-errors.js';
import { ConnectorHealthService } from '../services/connector-health-service.js';
import { DaemonMetrics } from '../services/daemon-metrics.js';
import { EmbeddedWebhooksService } from '../services/embedded-webhooks-service.js';
import { EnvironmentService } from '../services/environment-service.js';
import type { Environment } from '../services/environment.js';
import { DAEMON_LOCK_WAIT_MS } from '../services/lock-wait.js';
import { HousekeepingService } from '../services/housekeeping-service.js';
import { InboxService } from '../services/inbox-service.js';
import { LeadershipService, type CompanyLead } from '../services/leadership-service.js';
import {
  Lifecycle,
  startServices,
  type LifecycleLog,
  type LifecycleObserver,
} from '../services/lifecycle.js';
import { MetricsService } from '../services/metrics-service.js';
import { watchedConditions } from '../services/notification-conditions.js';
import { NotificationService } from '../services/notification-service.js';
import { OpsServerService, type OpsMount } from '../services/ops-server-service.js';
import { inSlots, type RunSlots } from '../jobs/run-slots.js';
import { PreflightService, type PreflightGate } from '../services/preflight-service.js';
import { SchedulerService } from '../services/scheduler-service.js';
import { ServiceGroup } from '../services/service-group.js';
import type { Service } from '../services/service.js';
import { statusProviders } from '../services/status-providers.js';
import { WebhookDispatchService } from '../services/webhook-dispatch-service.js';
import { WebhookIntakeService } from '../services/webhook-intake-service.js';

const DEFAULT_JOB_BUDGET_MS = 15 * 60_000;
/** After a failed start, catch-up runs already under way get this long to reach a checkpoint. */
const STOP_AFTER_FAILED_START = { timeoutMs: 10_000 };

export interface DaemonOptions {
  loaded: LoadedConfig;
  registry: PluginRegistry;
  clock?: Clock;
  /** The background loops' clock (Environment.loopClock): an office gives its companies one they share. */
  loopClock?: Clock;
  logger?: Logger;
  /** Override of server.port (0 picks a free port; tests and the demo use it). */
  port?: number;
  /** Skip the catch-up run at start (the CLI's `run --no-catch-up`). */
  catchUp?: boolean;
  /** Told of each service's start and stop (tests make a step fail here). */
  observer?: LifecycleObserver;
  /**
   * Gives up the start (SIGTERM while starting): no further service starts, what started is stopped in reverse and
   * runDaemon rejects with a StartAbortedError.
   */
  signal?: AbortSignal;
  /** An office's server to serve the operations endpoints under a path of, instead of server.port. */
  mount?: OpsMount;
  /** An office's bound on runs going at once, shared by its companies. */
  runSlots?: RunSlots;
  /** How often the operator command queue is read (COMMAND_POLL_MS by default). */
  commandPollMs?: number;
  /** Failed logins counted with the other daemons of the process (an office's companies share its users). */
  loginThrottle?: LoginThrottle;
  /**
   * On a shared PostgreSQL state, whether this instance should take a free lease at once: an office's instances
   * share their companies out (office-balance.ts). Always by default.
   */
  claim?: () => boolean;
  /**
   * The environment the config's `${VAR}` references are read from when the file is read again (a reload, a term
   * won): the process's own by default, an office's where an office runs the daemon.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface Daemon {
  readonly env: Environment;
  readonly opsUrl: string;
  readonly webhookUrl: string;
  readonly metrics: OpsMetrics;
  runNow(job: string, trigger?: SchedulerTrigger): Promise<void>;
  /** What the status page shows now (an office's page shows a row of it per company). */
  snapshot(): Promise<StatusSnapshot>;
  /**
   * Reads the config file again on this instance (SIGHUP): new mappings apply from each job's next run; any other
   * change is refused naming its keys, and an invalid file is refused with the loader's error. Recorded in the
   * commands table with `by` and logged.
   */
  reloadConfig(by: string): RecordedReload;
  /** On a shared PostgreSQL state, this instance's hold on the jobs; undefined on a SQLite file (it always runs them). */
  readonly leadership: CompanyLead | undefined;
  /** Reads the operator command queue now (a command was queued for it), not at the next poll. */
  readCommands(): void;
  /**
   * Stops taking work, lets running jobs reach a checkpoint (up to timeoutMs), then closes everything; rejects with a
   * ServicesStopError naming the services that failed to stop (the others are stopped).
   */
  stop(timeoutMs?: number): Promise<{ unfinished: string[] }>;
}

/** Starts the daemon's services; a start error names the config key to change and how (port in use, state locked...). */
export async function runDaemon(options: DaemonOptions): Promise<Daemon> {
  const metrics = new DaemonMetrics({
    processMetrics: options.mount === undefined,
    apiKeySetting: apiKeySettingName(options.loaded),
  });
  const clock = options.clock ?? systemClock;
  const local = newLocalToken(options.loaded.config);
  // Until the environment has built its logger there is nothing to report with: nothing has started yet.
  const log = (): LifecycleLog => environment.logger() ?? { warn: () => undefined, error: () => undefined };
  const environment: EnvironmentService = new EnvironmentService({
    loaded: options.loaded,
    registry: options.registry,
    clock,
    loopClock: options.loopClock,
    logger: options.logger,
    hooks: metrics.hooks(clock, log),
    observer: options.observer,
    extraSecrets: () => [local.token],
    lockWaitMs: DAEMON_LOCK_WAIT_MS,
  });
  const lifecycle = new Lifecycle(log, options.observer, options.signal);
  try {
    return await startServices(lifecycle, STOP_AFTER_FAILED_START, () =>
      startDaemon({
        lifecycle,
        environment,
        metrics,
        log,
        options,
        identity: opsIdentity(options.loaded.config, local, options.loginThrottle),
      }),
    );
  } catch (error) {
    throw explainStartError(error, options.loaded, options.port);
  }
}

/** What every step of the start works with. */
interface DaemonStart {
  readonly lifecycle: Lifecycle;
  readonly environment: EnvironmentService;
  readonly metrics: DaemonMetrics;
  readonly log: () => LifecycleLog;
  readonly options: DaemonOptions;
  /** Who calls the ops server; its local token is written just before the server listens. */
  readonly identity: { readonly identity: OpsIdentity; readonly local: LocalToken };
}

/** The services in start order, each built from what the ones before it made. */
async function startDaemon(start: DaemonStart): Promise<Daemon> {
  const { lifecycle, environment, metrics } = start;
  const { env } = await lifecycle.start(environment);
  const watching = await startWatching(lifecycle, env);
  const work = jobServices(start, env, watching.preflight, watching.inbox.dispatchInbox);
  const { leadership } = work;
  const providers = watchHealth(start, env, watching, work);
  await lifecycle.start(new MetricsService(env, metrics, providers));
  const urls = await startServing(start, {
    env,
    inbox: watching.inbox.inbox,
    dispatch: work.dispatch,
    providers,
    control: createControlApi({
      loaded: env.loaded,
      queue: watching.inbox.unfencedState,
      providers,
      logger: env.logger,
      auth: { identity: start.identity.identity },
      kick: () => work.commands.drain(),
      knownSecrets: env.secrets,
    }),
  });
  // Last: a start that fails at any step before has run no job (no catch-up run, no dispatch of pending events).
  await lifecycle.start(leadership ?? work.jobs);
  env.logger.info(
    { ops: urls.opsUrl, api: env.endpoint.label, jobs: [...env.jobs.keys()] },
    'daemon started',
  );
  return daemonHandle(start, env, { watching, work, urls, providers });
}

type Providers = ReturnType<typeof statusProviders>;

/** The status model every view reads (status page, /readyz, metrics), and the notifications watching it. */
function watchHealth(start: DaemonStart, env: Environment, watching: Watching, work: JobServices): Providers {
  const { leadership } = work;
  const { metrics } = start;
  const providers = statusProviders({
    env,
    inbox: watching.inbox.inbox,
    unfencedState: watching.inbox.unfencedState,
    ...(leadership === undefined ? {} : { leadership: () => leadership.status() }),
    apiHealth: metrics.apiHealth,
    connectorHealth: watching.connectors.health,
    scheduler: work.scheduler,
    preflight: watching.preflight,
    startedAt: start.environment.startedAt,
  });
  work.notifications.watch(
    watchedConditions({
      providers,
      apiHealth: metrics.apiHealth,
      now: () => env.clock.now(),
      secrets: env.secrets,
    }),
    leadership === undefined ? undefined : () => leadership.status(),
  );
  return providers;
}

/** The started daemon as its callers hold it. */
function daemonHandle(
  start: DaemonStart,
  env: Environment,
  parts: {
    watching: Watching;
    work: JobServices;
    urls: Awaited<ReturnType<typeof startServing>>;
    providers: Providers;
  },
): Daemon {
  const { watching, work, urls, providers } = parts;
  return {
    env,
    ...urls,
    metrics: start.metrics.metrics,
    runNow: (job, trigger = 'cli') => work.scheduler.runNow(job, trigger),
    snapshot: async () => {
      const now = env.clock.now();
      const readiness = await evaluateReadiness(providers, now, DEFAULT_READINESS_POLICY, env.secrets());
      return buildStatusSnapshot(providers, readiness, now, env.secrets());
    },
    reloadConfig: (by) =>
      recordedReload(
        {
          loaded: env.loaded,
          mappings: env.mappings,
          queue: watching.inbox.unfencedState,
          logger: env.logger,
          ...(start.options.env === undefined ? {} : { env: start.options.env }),
        },
        by,
      ),
    readCommands: () => work.commands.drain(),
    leadership: work.leadership,
    stop: (timeoutMs = 30_000) => stopDaemon(start.lifecycle, env, work.scheduler, timeoutMs),
  };
}

interface Watching {
  readonly inbox: InboxService;
  readonly preflight: PreflightGate;
  readonly connectors: ConnectorHealthService;
}

/** What every instance keeps, leader or not: the webhook inbox, the pre-flight gate and the connector checks. */
async function startWatching(lifecycle: Lifecycle, env: Environment): Promise<Watching> {
  const inbox = await lifecycle.start(new InboxService(env));
  const { gate: preflight } = await lifecycle.start(new PreflightService(env));
  const connectors = await lifecycle.start(new ConnectorHealthService(env));
  return { inbox, preflight, connectors };
}

interface JobServices {
  readonly scheduler: SchedulerService;
  /** Drains the operator command queue (the CLI's and the control API's). */
  readonly commands: CommandService;
  readonly dispatch: WebhookDispatchService;
  readonly notifications: NotificationService;
  /** The scheduler, the webhook dispatch, housekeeping and notifications, started and stopped as one. */
  readonly jobs: ServiceGroup;
  /** On a shared PostgreSQL state, the election that starts and stops the jobs group. */
  readonly leadership: LeadershipService | undefined;
}

/**
 * The services that run jobs, as one group; on a shared PostgreSQL state the leader election starts the group when
 * it wins a term and stops it when the term is lost, while every other service runs on every instance.
 */
function jobServices(
  start: DaemonStart,
  env: Environment,
  preflight: PreflightGate,
  dispatchInbox: InboxStore,
): JobServices {
  const { metrics, options } = start;
  const election = leadershipSettings(env.loaded.config);
  let leadership: LeadershipService | undefined;
  // The slot first: a job paused while its run waits for a slot is not run when the slot comes.
  const run = inSlots(
    pauseAware(
      jobRun({
        env,
        dryRun: false,
        defaultBudgetMs: DEFAULT_JOB_BUDGET_MS,
        guard: (name, job) => preflight.guard(name, job),
        inTerm: (work) => leadership?.inCurrentTerm(work) ?? work(),
        onFenced: (name, reason) => leadership?.stepDown(`a write of job ${name} was refused: ${reason}`),
        onFinished: (name, result, durationMs) => metrics.recordRun(name, result, durationMs),
      }),
      env,
    ),
    options.runSlots,
    env.loaded.company?.name,
  );
  const scheduler = new SchedulerService({ env, run, catchUp: options.catchUp !== false });
  const dispatch = new WebhookDispatchService(env, dispatchInbox, scheduler);
  const commands = operatorCommands(env, scheduler, options.commandPollMs);
  const notifications = new NotificationService({ env, metrics: metrics.metrics });
  const group: Service[] = [scheduler, dispatch, new HousekeepingService(env), commands];
  if (env.loaded.config.notifications !== undefined) group.push(notifications);
  const jobs = new ServiceGroup('jobs', group, start.log, STOP_AFTER_FAILED_START, options.observer);
  const { url } = env.loaded.config.state;
  if (election !== null && url !== undefined) {
    // A reload given to an earlier leader, or an edit of the file made while this instance stood by, reaches the
    // scheduled runs of this one: its file is read again when it wins a term.
    const onTerm = (): void => {
      reloadOnLeadership({
        loaded: env.loaded,
        mappings: env.mappings,
        queue: env.state,
        logger: env.logger,
        ...(options.env === undefined ? {} : { env: options.env }),
      });
    };
    const claim = options.claim === undefined ? {} : { claim: options.claim };
    leadership = new LeadershipService({ env, url, settings: election, jobs, onTerm, ...claim });
  }
  return { scheduler, dispatch, commands, notifications, jobs, leadership };
}

/** The operator command queue's drain: a run now is the scheduler's, held webhooks run once a job is resumed. */
function operatorCommands(env: Environment, scheduler: SchedulerService, pollMs?: number): CommandService {
  return new CommandService(
    env,
    {
      runForResult: (job, requestedBy) => scheduler.runForResult(job, 'operator', requestedBy),
      betweenRuns: (job, work) => scheduler.betweenRuns(job, work),
      runHeldWebhooks: (job) => {
        scheduler
          .runNow(job, 'webhook')
          .catch((error: unknown) => env.logger.error({ err: error, job }, 'run failed'));
      },
    },
    pollMs,
  );
}

interface ServingSources {
  readonly control: ControlHandler | undefined;
  readonly env: Environment;
  readonly inbox: ClosableInbox;
  readonly dispatch: WebhookDispatchService;
  readonly providers: OpsProviders;
}

/** Webhook intake, the ops server and, with the embedded sandbox, the registration of the daemon's webhook URL. */
async function startServing(
  start: DaemonStart,
  { env, inbox, dispatch, providers, control }: ServingSources,
): Promise<{ opsUrl: string; webhookUrl: string }> {
  const { lifecycle, environment, metrics, options } = start;
  const { config } = env.loaded;
  const access = createOpsAccessCheck(
    { identity: start.identity.identity, webhookAllowCidrs: config.server.webhooks?.allow_cidrs ?? [] },
    config.server.webhook_path,
  );
  writeLocalToken(start.identity.local);
  const intake = await lifecycle.start(
    new WebhookIntakeService({
      env,
      inbox,
      registeredSecrets: () => environment.webhookSecrets.activeSecrets(),
      metrics: metrics.metrics,
      access,
      onStored: () => dispatch.kick(),
    }),
  );
  const ops = await lifecycle.start(
    new OpsServerService({
      env,
      port: options.port,
      access,
      readinessDetails: (req) => start.identity.identity.identify(req).kind === 'user',
      metrics: metrics.metrics,
      providers,
      webhookReceiver: intake.onOpsServer ? intake.receiver : undefined,
      control,
      mount: options.mount,
    }),
  );
  const webhookUrl = `${intake.listenerUrl ?? ops.url}${config.server.webhook_path}`;
  await lifecycle.start(
    new EmbeddedWebhooksService(env, webhookUrl, environment.webhookSecrets, dispatch.mapping()),
  );
  return { opsUrl: ops.url, webhookUrl };
}

function opsIdentity(
  config: LoadedConfig['config'],
  local: LocalToken,
  throttle: LoginThrottle | undefined,
): DaemonStart['identity'] {
  const identity = createOpsIdentity({
    credentials: credentialsFromConfig(config.server.auth),
    local,
    trustedProxies: config.server.trusted_proxies,
    ...(throttle === undefined ? {} : { throttle }),
  });
  return { identity, local };
}

/**
 * In reverse: the jobs group first (no new runs, running jobs reach a checkpoint; events stored from then on wait in
 * the inbox for the next start), then registration, the ops server and webhook intake, then the checks, the inbox
 * and the environment. A failed stop rejects naming the services that failed.
 */
async function stopDaemon(
  lifecycle: Lifecycle,
  env: Environment,
  scheduler: SchedulerService,
  timeoutMs: number,
): Promise<{ unfinished: string[] }> {
  await lifecycle.stop({ timeoutMs });
  const unfinished = [...scheduler.unfinished];
  env.logger.info({ unfinished }, 'daemon stopped');
  return { unfinished };
}
