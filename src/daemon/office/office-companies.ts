/** The office's companies as it runs them: each one's entry, and starting or stopping one without the others. */
import type { Logger } from 'pino';
import type { LoadedConfig } from '../../config/index.js';
import type { Clock } from '../../shared/clock.js';
import { scrubSecrets } from '../../log/index.js';
import type { LoginThrottle } from '../../ops/login-throttle.js';
import type { RunSlots } from '../jobs/run-slots.js';
import type { PluginRegistry } from '../plugins/builtin.js';
import { runDaemon } from '../start/run-daemon.js';
import type { OfficeHost } from './office-host.js';
import type { CompanyEntry } from './office-status.js';

/**
 * How often each company's operator command queue is read when nobody rings: the CLI rings the office after it
 * queues a command for a company (office-commands.ts), so this is the bound for a command queued while the office's
 * own state could not be written. 300 idle companies poll 30 times a second, not 1,200.
 */
export const OFFICE_COMMAND_POLL_MS = 10_000;

/** Companies starting (or stopping) at once: each opens its state, checks its connectors and catches up. */
export const START_CONCURRENCY = 8;

/** Why a company on a SQLite file is not run by an office whose instances share the companies. */
const UNSHARED_STATE =
  "not run: the office's instances share their companies through PostgreSQL (state.url in the office file), and " +
  'a company on a SQLite file would be run by every instance at once; give it a database of its own (state.url in ' +
  'its file), or run it in an office of its own';

export type MutableEntry = { -readonly [K in keyof CompanyEntry]: CompanyEntry[K] };

/** What every company of the office shares, and how each one is started. */
export interface OfficeShared {
  readonly registry: PluginRegistry;
  readonly slots: RunSlots;
  readonly throttle: LoginThrottle;
  readonly host: OfficeHost;
  readonly logger: Logger;
  readonly secrets: () => readonly string[];
  /** The companies' background loops wait on this one clock, so that those due in the same second wake once. */
  readonly loopClock: Clock;
  readonly catchUp?: boolean | undefined;
  /** Gives up starts (SIGTERM while starting). */
  readonly signal?: AbortSignal | undefined;
  /** With several office instances (office-balance.ts): whether this one takes the company's lease at once. */
  readonly claim?: ((company: string) => boolean) | undefined;
  /** The environment the office's files are read again with (a company's reload reads its `${VAR}`s there too). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function loadedCompanyName(loaded: LoadedConfig): string {
  return loaded.company?.name ?? loaded.file;
}

/** Starts one company's daemon on the office's port; a failed start is the company's alone. */
export async function startCompany(
  entry: MutableEntry,
  loaded: LoadedConfig,
  shared: OfficeShared,
): Promise<void> {
  const aborted = (): boolean => shared.signal?.aborted === true;
  if (aborted()) {
    entry.state = 'stopped';
    return;
  }
  entry.state = 'starting';
  entry.error = null;
  if (shared.claim !== undefined && loaded.config.state.url === undefined) {
    entry.state = 'failed';
    entry.error = UNSHARED_STATE;
    shared.logger.error({ company: entry.name }, UNSHARED_STATE);
    return;
  }
  try {
    entry.daemon = await runDaemon({
      loaded,
      registry: shared.registry,
      logger: shared.logger.child({ company: entry.name }),
      loopClock: shared.loopClock,
      ...(shared.catchUp === undefined ? {} : { catchUp: shared.catchUp }),
      ...(shared.signal === undefined ? {} : { signal: shared.signal }),
      mount: shared.host.mountFor(entry.name),
      runSlots: shared.slots,
      commandPollMs: OFFICE_COMMAND_POLL_MS,
      loginThrottle: shared.throttle,
      ...(shared.claim === undefined ? {} : { claim: () => shared.claim?.(entry.name) ?? true }),
      env: shared.env,
    });
    entry.daemon.metrics.registry.setDefaultLabels({ company: entry.name });
    entry.state = 'running';
  } catch (error) {
    entry.daemon = undefined;
    if (aborted()) {
      entry.state = 'stopped';
      return;
    }
    entry.state = 'failed';
    entry.error = scrubSecrets(error instanceof Error ? error.message : String(error), shared.secrets());
    // An error that explains itself (a code of this project's own, `state_database_unavailable` or `config_invalid`)
    // needs no stack trace; Node's (ERR_*, ECONNRESET) and the unexpected keep theirs.
    const code = (error as { code?: unknown } | null)?.code;
    const explained = typeof code === 'string' && /^[a-z][a-z_]+$/.test(code);
    const detail = explained ? { reason: entry.error, code } : { err: error };
    shared.logger.error({ company: entry.name, ...detail }, 'company did not start; the others run');
  }
}

/** Stops one company: its running jobs reach a checkpoint within timeoutMs; returns those that did not. */
export async function stopCompany(entry: MutableEntry, timeoutMs: number): Promise<string[]> {
  const daemon = entry.daemon;
  entry.state = 'stopped';
  if (daemon === undefined) return [];
  const { unfinished } = await daemon.stop(timeoutMs);
  entry.daemon = undefined;
  return unfinished.map((job) => `${entry.name}/${job}`);
}

/** Runs `work` on every item, at most `limit` at once. */
export async function eachBounded<T>(
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
