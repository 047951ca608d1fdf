/**
 * `supply-sync run` on an office config: every company's daemon in one process. Each company keeps everything of its
 * own (state, key, connectors, jobs, inbox, notifications), exactly as a daemon of its own; they share one port
 * (each company's endpoints under /companies/<name>/), one log and a bound on runs going at once. A company whose
 * start fails is shown as failed and the others run.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { secretValues, type LoadedConfig, type OfficeConfig } from '../../config/index.js';
import { DEFAULT_LOCAL_TOKEN_NAME } from '../../config/control-schema.js';
import { scrubSecrets } from '../../log/index.js';
import { configuredLogger } from '../services/environment-service.js';
import { createOpsAccessCheck } from '../../ops/auth.js';
import { credentialsFromConfig } from '../../ops/credentials.js';
import { createOpsIdentity } from '../../ops/ops-identity.js';
import { createLoginThrottle, type LoginThrottle } from '../../ops/login-throttle.js';
import { RunSlots } from '../jobs/run-slots.js';
import type { PluginRegistry } from '../plugins/builtin.js';
import { newLocalTokenAt, writeLocalToken } from '../start/local-token.js';
import { runDaemon, type Daemon } from '../start/run-daemon.js';
import { OfficeHost } from './office-host.js';
import type { CompanyEntry } from './office-status.js';

/** Companies starting at once: each opens its state, checks its connectors and catches up. */
const START_CONCURRENCY = 8;
/**
 * How often each company's operator command queue is read: a CLI command waits up to this long more than with a
 * daemon of its own (250 ms), and 300 idle companies poll 300 times a second, not 1,200.
 */
const OFFICE_COMMAND_POLL_MS = 1_000;

export interface OfficeOptions {
  readonly office: OfficeConfig;
  readonly registry: PluginRegistry;
  /** Overrides server.port (0 picks a free port). */
  readonly port?: number | undefined;
  readonly catchUp?: boolean | undefined;
  readonly logger?: Logger | undefined;
  /** Gives up the start (SIGTERM while starting): companies not started yet are not started. */
  readonly signal?: AbortSignal | undefined;
}

export interface OfficeDaemon {
  readonly url: string;
  /** A company's daemon, once it runs. */
  company(name: string): Daemon | undefined;
  companies(): readonly CompanyEntry[];
  /** Every secret of every company, for scrubbing text shown to people. */
  secrets(): readonly string[];
  /** Stops every company (running jobs reach a checkpoint within timeoutMs), then the server. */
  stop(timeoutMs?: number): Promise<{ unfinished: string[] }>;
}

type MutableEntry = { -readonly [K in keyof CompanyEntry]: CompanyEntry[K] };

export async function runOffice(options: OfficeOptions): Promise<OfficeDaemon> {
  const { office } = options;
  const configs = [...office.companies.values()];
  const first = officeSettings(office);
  const settings = first.config;
  const entries = new Map<string, MutableEntry>([
    ...configs.map((loaded) => {
      const name = loaded.company?.name ?? loaded.file;
      return [name, { name, state: 'starting', error: null, daemon: undefined }] as const;
    }),
    ...[...office.failed].map(
      ([name, error]) => [name, { name, state: 'failed', error, daemon: undefined }] as const,
    ),
  ]);
  const configSecrets = configs.flatMap((loaded) => secretValues(loaded.config, options.registry));
  const secrets = (): readonly string[] => [
    ...configSecrets,
    ...[...entries.values()].flatMap((entry) => entry.daemon?.env.secrets() ?? []),
  ];
  // One log for the office, in its level, form and time zone; each company's lines carry `company`.
  const logger = options.logger ?? configuredLogger(first, options.registry, secrets);
  const throttle = createLoginThrottle();
  const host = officeHost(
    office,
    settings.server,
    options.port,
    () => [...entries.values()],
    logger,
    throttle,
  );
  await host.listen();
  const shared = {
    slots: new RunSlots(office.maxConcurrentRuns),
    throttle,
    host,
    logger,
    secrets,
  };
  await eachBounded(configs, START_CONCURRENCY, (loaded) =>
    startCompany(entries.get(loaded.company?.name ?? loaded.file) as MutableEntry, loaded, options, shared),
  );
  for (const [company, problems] of office.failed) {
    logger.error({ company, problems }, 'company not started: its config has mistakes; the others run');
  }
  const running = [...entries.values()].filter((entry) => entry.state === 'running').length;
  logger.info({ url: host.url, companies: entries.size, running }, 'office started');
  let stopping: Promise<{ unfinished: string[] }> | undefined;
  return {
    url: host.url,
    company: (name) => entries.get(name)?.daemon,
    companies: () => [...entries.values()],
    secrets,
    stop: (timeoutMs = 30_000) => (stopping ??= stopOffice([...entries.values()], host, timeoutMs)),
  };
}

interface Shared {
  readonly slots: RunSlots;
  readonly throttle: LoginThrottle;
  readonly host: OfficeHost;
  readonly logger: Logger;
  readonly secrets: () => readonly string[];
}

/** Starts one company's daemon on the office's port; a failed start is the company's alone. */
async function startCompany(
  entry: MutableEntry,
  loaded: LoadedConfig,
  options: OfficeOptions,
  shared: Shared,
): Promise<void> {
  const aborted = (): boolean => options.signal?.aborted === true;
  if (aborted()) {
    entry.state = 'stopped';
    return;
  }
  try {
    entry.daemon = await runDaemon({
      loaded,
      registry: options.registry,
      logger: shared.logger.child({ company: entry.name }),
      ...(options.catchUp === undefined ? {} : { catchUp: options.catchUp }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      mount: shared.host.mountFor(entry.name),
      runSlots: shared.slots,
      commandPollMs: OFFICE_COMMAND_POLL_MS,
      loginThrottle: shared.throttle,
    });
    entry.daemon.metrics.registry.setDefaultLabels({ company: entry.name });
    entry.state = 'running';
  } catch (error) {
    if (aborted()) {
      entry.state = 'stopped';
      return;
    }
    entry.state = 'failed';
    entry.error = scrubSecrets(error instanceof Error ? error.message : String(error), shared.secrets());
    shared.logger.error({ company: entry.name, err: error }, 'company did not start; the others run');
  }
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
  });
}

/** Runs `work` on every item, at most `limit` at once. */
async function eachBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function stopOffice(
  entries: readonly MutableEntry[],
  host: OfficeHost,
  timeoutMs: number,
): Promise<{ unfinished: string[] }> {
  const stopped = await Promise.allSettled(
    entries.map(async (entry) => {
      const daemon = entry.daemon;
      entry.state = 'stopped';
      if (daemon === undefined) return [];
      const { unfinished } = await daemon.stop(timeoutMs);
      return unfinished.map((job) => `${entry.name}/${job}`);
    }),
  );
  await host.close();
  const failed = stopped.filter((outcome) => outcome.status === 'rejected');
  if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
  return { unfinished: stopped.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : [])) };
}
