/**
 * `supply-sync run` on an office config: every company's daemon in one process. Each company keeps everything of its
 * own (state, key, connectors, jobs, inbox, notifications), exactly as a daemon of its own; they share one port
 * (each company's endpoints under /companies/<name>/), one log and a bound on runs going at once. A company whose
 * start fails is shown as failed and the others run.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  secretValues,
  type LoadedConfig,
  type OfficeConfig,
  type OfficeReportConfig,
} from '../../config/index.js';
import { DEFAULT_LOCAL_TOKEN_NAME } from '../../config/control-schema.js';
import { configuredLogger } from '../services/environment-service.js';
import { createOpsAccessCheck } from '../../ops/auth.js';
import { credentialsFromConfig } from '../../ops/credentials.js';
import { createOpsIdentity } from '../../ops/ops-identity.js';
import { createLoginThrottle, type LoginThrottle } from '../../ops/login-throttle.js';
import { RunSlots } from '../jobs/run-slots.js';
import type { PluginRegistry } from '../plugins/builtin.js';
import { newLocalTokenAt, writeLocalToken } from '../start/local-token.js';
import { haConfigSchema, haSettings } from '../../ha/index.js';
import type { Daemon } from '../start/run-daemon.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { coalescingClock } from '../../shared/coalescing-clock.js';
import { ControlError } from '../control/actions.js';
import type { QueueLimits } from '../control/command-queue.js';
import {
  OFFICE_WAKE,
  officeQueueLimits,
  openOfficeCommands,
  type OfficeCommands,
} from './office-commands.js';
import {
  eachBounded,
  loadedCompanyName,
  START_CONCURRENCY,
  startCompany,
  stopCompany,
  type MutableEntry,
  type OfficeShared,
} from './office-companies.js';
import { OfficeBalance } from './office-balance.js';
import { OfficeHost } from './office-host.js';
import { FollowedReport, OfficeReportService } from './office-report-service.js';
import { reloadOffice, type OfficeReload, type OfficeRunning } from './office-reload.js';
import type { CompanyEntry } from './office-status.js';

/** How often the office's own command queue is read (`config reload` of the office). */
const OFFICE_QUEUE_POLL_MS = 500;
const DEFAULT_STOP_TIMEOUT_MS = 30_000;

export interface OfficeOptions {
  readonly office: OfficeConfig;
  readonly registry: PluginRegistry;
  /** Overrides server.port (0 picks a free port). */
  readonly port?: number | undefined;
  readonly catchUp?: boolean | undefined;
  readonly logger?: Logger | undefined;
  /** Gives up the start (SIGTERM while starting): companies not started yet are not started. */
  readonly signal?: AbortSignal | undefined;
  /** The office report's clock (the system's by default; tests move it to the report's time). */
  readonly clock?: Clock | undefined;
  /** The environment the office's files are read again with on a reload (the process's own by default). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

export interface OfficeDaemon {
  readonly url: string;
  /** A company's daemon, once it runs. */
  company(name: string): Daemon | undefined;
  companies(): readonly CompanyEntry[];
  /** Every secret of every company, for scrubbing text shown to people. */
  secrets(): readonly string[];
  /**
   * Reads the office file and the company files again (office-reload.ts): companies added, removed or changed
   * take effect without a stop of the others. Reloads run one at a time; a refusal rejects with a ControlError.
   */
  reload(by: string): Promise<OfficeReload>;
  /** Stops every company (running jobs reach a checkpoint within timeoutMs), then the server. */
  stop(timeoutMs?: number): Promise<{ unfinished: string[] }>;
}

export async function runOffice(options: OfficeOptions): Promise<OfficeDaemon> {
  const first = officeSettings(options.office);
  // The office's own state first: a second office on the same files is refused before anything starts.
  const commands = openOfficeCommands(options.office.statePath, systemClock);
  try {
    return await startOffice(options, first, commands);
  } catch (error) {
    await commands.close();
    throw error;
  }
}

async function startOffice(
  options: OfficeOptions,
  first: LoadedConfig,
  commands: OfficeCommands,
): Promise<OfficeDaemon> {
  const { office } = options;
  const entries = initialEntries(office);
  // The companies' configs as last read: a reload replaces them.
  const current: { running?: OfficeRunning } = {};
  const secrets = officeSecrets(entries, options.registry, () => current.running?.office ?? office);
  // One log for the office, in its level, form and time zone; each company's lines carry `company`.
  const logger = options.logger ?? configuredLogger(first, options.registry, secrets);
  const throttle = createLoginThrottle();
  const listing = (): readonly CompanyEntry[] => [...entries.values()];
  const balance = officeBalance(office, first, () => entries.values(), logger);
  const host = officeHost(office, first.config.server, options.port, listing, logger, throttle, balance);
  await host.listen();
  const shared: OfficeShared = {
    registry: options.registry,
    slots: new RunSlots(office.maxConcurrentRuns),
    ...{ throttle, host, logger, secrets, loopClock: coalescingClock(systemClock) },
    ...{ catchUp: options.catchUp, signal: options.signal },
    claim: balance === undefined ? undefined : (company) => balance.claims(company),
    env: options.env ?? process.env,
  };
  const running: OfficeRunning = {
    ...{ office, entries, shared },
    ...{ env: shared.env, stopTimeoutMs: DEFAULT_STOP_TIMEOUT_MS, held: new Map() },
  };
  current.running = running;
  await eachBounded([...office.companies.values()], START_CONCURRENCY, (loaded) =>
    startCompany(entries.get(loadedCompanyName(loaded)) as MutableEntry, loaded, shared),
  );
  for (const [company, problems] of office.failed) {
    logger.error({ company, problems }, 'company not started: its config has mistakes; the others run');
  }
  // Joined once every company has started: the others hand this one its share only when it can take it.
  if (options.signal?.aborted !== true) await balance?.start();
  running.report = new FollowedReport({
    make: (report) => officeReportService({ options, first, commands, running, balance }, report),
    settings: office.report,
    logger,
    secrets,
  });
  return officeDaemon(running, officeQueueLimits(office), commands, balance);
}

function officeReportService(
  parts: {
    options: OfficeOptions;
    first: LoadedConfig;
    commands: OfficeCommands;
    running: OfficeRunning;
    balance: OfficeBalance | undefined;
  },
  report: OfficeReportConfig,
): OfficeReportService {
  const { options, first, commands, running, balance } = parts;
  // The office as last read (its file's folder, for the channels' files).
  const { office } = running;
  return new OfficeReportService({
    ...{ office, report, first, state: commands.state, clock: options.clock ?? systemClock },
    logger: running.shared.logger,
    secrets: running.shared.secrets,
    companies: () =>
      [...running.entries.values()].map((entry) => ({
        name: entry.name,
        running:
          entry.daemon === undefined
            ? null
            : {
                state: entry.daemon.env.state,
                jobs: new Map([...entry.daemon.env.jobs].map(([name, built]) => [name, built.config])),
              },
        problem: entry.daemon === undefined ? (entry.error ?? entry.state) : null,
      })),
    claims: balance?.duties,
  });
}

/** With the office's own PostgreSQL database (state.url in the office file), its instances share the companies. */
function officeBalance(
  office: OfficeConfig,
  first: LoadedConfig,
  entries: () => Iterable<MutableEntry>,
  logger: Logger,
): OfficeBalance | undefined {
  if (office.stateUrl === undefined) return undefined;
  const settings = haSettings(first.config.ha ?? haConfigSchema.parse({}));
  return new OfficeBalance({ url: office.stateUrl, settings, entries, logger });
}

function initialEntries(office: OfficeConfig): Map<string, MutableEntry> {
  return new Map<string, MutableEntry>([
    ...[...office.companies.values()].map((loaded) => {
      const name = loadedCompanyName(loaded);
      return [name, { name, state: 'starting', error: null, daemon: undefined }] as const;
    }),
    ...[...office.failed].map(
      ([name, error]) => [name, { name, state: 'failed', error, daemon: undefined }] as const,
    ),
  ]);
}

function officeDaemon(
  running: OfficeRunning,
  limits: QueueLimits,
  commands: OfficeCommands,
  balance: OfficeBalance | undefined,
): OfficeDaemon {
  const { entries, shared } = running;
  let reloading: Promise<unknown> = Promise.resolve();
  let stopping: Promise<{ unfinished: string[] }> | undefined;
  const reload = (by: string): Promise<OfficeReload> => {
    if (stopping !== undefined) {
      return Promise.reject(
        new ControlError('office_stopping', 'the office is stopping: nothing was reloaded'),
      );
    }
    const next = reloading.then(async () => {
      const done = await reloadOffice(running, by);
      balance?.rebalance();
      return done;
    });
    reloading = next.catch((error: unknown) => {
      const refused = error instanceof ControlError;
      shared.logger[refused ? 'warn' : 'error'](
        { by, err: error },
        `office config reload ${refused ? 'refused' : 'failed'}`,
      );
    });
    return next;
  };
  commands.serve({
    logger: shared.logger,
    limits,
    pollMs: OFFICE_QUEUE_POLL_MS,
    carryOut: (command) => {
      if (command.kind === 'config.reload') return reload(command.requestedBy);
      if (command.kind === OFFICE_WAKE) return Promise.resolve(wake(entries, command.args['company']));
      return Promise.reject(
        new ControlError('unknown_command', `"${command.kind}" is not a command of the office`),
      );
    },
  });
  const count = [...entries.values()].filter((entry) => entry.state === 'running').length;
  shared.logger.info({ url: shared.host.url, companies: entries.size, running: count }, 'office started');
  return {
    url: shared.host.url,
    company: (name) => entries.get(name)?.daemon,
    companies: () => [...entries.values()],
    secrets: shared.secrets,
    reload,
    stop: (timeoutMs = DEFAULT_STOP_TIMEOUT_MS) =>
      (stopping ??= reloading.then(async () => {
        await running.report?.stop();
        await commands.close();
        await balance?.stop();
        return stopOffice([...entries.values()], shared.host, timeoutMs);
      })),
  };
}

/** A company's queue was written to by the CLI: read it now. */
function wake(entries: ReadonlyMap<string, MutableEntry>, company: unknown): { woken: boolean } {
  const daemon = typeof company === 'string' ? entries.get(company)?.daemon : undefined;
  daemon?.readCommands();
  return { woken: daemon !== undefined };
}

/**
 * Every secret of the companies' configs (as last read, worked out once per reading) and of their running daemons:
 * the logger asks for them at every line.
 */
function officeSecrets(
  entries: ReadonlyMap<string, MutableEntry>,
  registry: PluginRegistry,
  office: () => OfficeConfig,
): () => readonly string[] {
  const byReading = new WeakMap<OfficeConfig, readonly string[]>();
  const ofConfigs = (reading: OfficeConfig): readonly string[] => {
    let found = byReading.get(reading);
    if (found === undefined) {
      found = [...reading.companies.values()].flatMap((loaded) => secretValues(loaded.config, registry));
      byReading.set(reading, found);
    }
    return found;
  };
  return () => [
    ...ofConfigs(office()),
    ...[...entries.values()].flatMap((entry) => entry.daemon?.env.secrets() ?? []),
  ];
}

/** The first company's config: it holds the settings every company shares (server, log, time zone). */
function officeSettings(office: OfficeConfig): LoadedConfig {
  const first = office.companies.values().next().value;
  if (first === undefined) {
    const failed = [...office.failed].map(([name, problems]) => `${name}:\n${problems}`).join('\n');
    throw new Error(
      `${office.file}: no company to run${failed === '' ? '' : `; each has a mistake:\n${failed}`}`,
    );
  }
  const { server } = first.config;
  if (server.webhooks?.port !== undefined) {
    throw new Error(
      `${office.file}: server.webhooks.port: one office process takes every company's webhooks on server.port ` +
        '(each under /companies/<name>/); remove server.webhooks.port, or run one daemon per company with --company',
    );
  }
  if (server.webhook_secrets.length > 0) {
    throw new Error(
      `${office.file}: server.webhook_secrets: in one office process a secret listed there would be accepted on every ` +
        "company's webhook path; remove it and register each company's endpoint with `supply-sync --company NAME webhooks register`",
    );
  }
  if (server.tls !== undefined) {
    throw new Error(
      `${office.file}: server.tls: one office process serves plain http for now; put a TLS proxy in front, or run one daemon per company with --company`,
    );
  }
  return first;
}

function officeHost(
  office: OfficeConfig,
  server: LoadedConfig['config']['server'],
  port: number | undefined,
  companies: () => readonly CompanyEntry[],
  logger: Logger,
  throttle: LoginThrottle,
  balance: OfficeBalance | undefined,
): OfficeHost {
  const local = newLocalTokenAt(join(office.stateDir, DEFAULT_LOCAL_TOKEN_NAME));
  writeLocalToken(local);
  const identity = createOpsIdentity({
    credentials: credentialsFromConfig(server.auth),
    local,
    trustedProxies: server.trusted_proxies,
    throttle,
  });
  return new OfficeHost({
    host: server.host,
    port: port ?? server.port,
    access: createOpsAccessCheck({ identity, webhookAllowCidrs: [] }, undefined),
    details: (req) => identity.identify(req).kind === 'user',
    companies,
    logger,
    instances: balance === undefined ? undefined : () => balance.status(),
    placement: balance,
  });
}

async function stopOffice(
  entries: readonly MutableEntry[],
  host: OfficeHost,
  timeoutMs: number,
): Promise<{ unfinished: string[] }> {
  const stopped = await Promise.allSettled(entries.map((entry) => stopCompany(entry, timeoutMs)));
  await host.close();
  const failed = stopped.filter((outcome) => outcome.status === 'rejected');
  if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
  return { unfinished: stopped.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : [])) };
}
