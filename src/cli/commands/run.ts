/**
 * `supply-sync run`: the daemon, until SIGTERM or SIGINT. The signal handlers are installed before the start, so a
 * signal while the daemon starts (a slow API, a slow connector) stops what has started and ends the process.
 */
import type { CommandSpec, Invocation } from '../command-spec.js';
import type { Daemon, OfficeDaemon } from '../../daemon/index.js';
import { describeOfficeReload } from '../office-command.js';
import { ControlError } from '../../daemon/control/actions.js';
import { handleShutdownSignals } from '../../scheduler/index.js';
import { globalOptions, loadCliConfigSet, type CliContext } from '../context.js';
import type { OfficeConfig } from '../../config/index.js';

const SHUTDOWN_TIMEOUT_MS = 30_000;

interface RunOptions {
  port?: number;
  catchUp: boolean;
}

type StartAborted = (error: unknown) => boolean;

/** Stops the daemon, or the start under way; rejects when a service failed to stop (exit code 1). */
async function shutdown(
  context: CliContext,
  starting: Promise<Daemon>,
  abort: AbortController,
  startAborted: StartAborted,
): Promise<void> {
  abort.abort();
  let daemon: Daemon;
  try {
    daemon = await starting;
  } catch (error) {
    if (startAborted(error)) {
      context.output.note('stopped before the start completed');
      return;
    }
    throw error; // reported by the start below
  }
  try {
    const { unfinished } = await daemon.stop(SHUTDOWN_TIMEOUT_MS);
    if (unfinished.length > 0) context.output.note(`stopped with unfinished jobs: ${unfinished.join(', ')}`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    context.output.note(`the daemon did not stop cleanly (${reason}); the log says why`);
    throw error;
  }
}

/** Installs the SIGTERM/SIGINT handlers; `exited` settles once the process is to end. */
function onShutdownSignals(stop: () => Promise<void>): { exited: Promise<void>; remove: () => void } {
  let remove = (): void => undefined;
  const exited = new Promise<void>((resolve) => {
    remove = handleShutdownSignals({
      shutdown: stop,
      onRepeat: (signal, forced) =>
        process.stderr.write(
          forced
            ? `${signal} again: exiting now, before the stop finished; the leases this process holds expire on ` +
                'their own (ha.lease), and a run cut off resumes from its last checkpoint\n'
            : `${signal} again at once: taken as the same request; still stopping (send it again to exit now)\n`,
        ),
      exit: (code) => {
        // A second signal means "now"; otherwise leave a moment for the last log lines, then make sure the
        // process ends even if a handle is still open.
        if (code === 130) process.exit(code);
        process.exitCode = code;
        resolve();
        setTimeout(() => process.exit(code), 2_000).unref();
      },
    });
  });
  return { exited, remove: () => remove() };
}

/** SIGHUP reloads the config's mappings; it never ends the process, also while starting. */
function sighupReload(context: CliContext, started: () => readonly Daemon[] | undefined): () => void {
  return () => {
    const daemons = started();
    if (daemons === undefined) {
      context.output.note('SIGHUP ignored: the daemon is still starting');
      return;
    }
    for (const daemon of daemons) {
      const label =
        daemon.env.loaded.company === undefined ? '' : ` (company ${daemon.env.loaded.company.name})`;
      try {
        const outcome = daemon.reloadConfig('signal:SIGHUP');
        if (!outcome.ok) context.output.note(`config reload refused${label}: ${outcome.error.message}`);
      } catch (error) {
        context.output.note(
          `config reload failed${label}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  };
}

/** SIGHUP to an office: its files read again (companies added, removed, changed), the outcome noted. */
function officeSighup(context: CliContext, started: () => OfficeDaemon | undefined): () => void {
  return () => {
    const office = started();
    if (office === undefined) {
      context.output.note('SIGHUP ignored: the office is still starting');
      return;
    }
    office.reload('signal:SIGHUP').then(
      (result) => {
        const known = new Set(context.secrets);
        context.secrets.push(...office.secrets().filter((secret) => !known.has(secret)));
        context.output.note(describeOfficeReload(result));
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        context.output.note(
          error instanceof ControlError
            ? `config reload refused: ${message}`
            : `config reload failed: ${message}; the office log says more`,
        );
      },
    );
  };
}

async function runDaemonCommand(invocation: Invocation<RunOptions>): Promise<void> {
  const { context, command } = invocation;
  const set = await loadCliConfigSet(context, globalOptions(command));
  if (set.kind === 'office') return runOfficeCommand(context, set.office, invocation.options);
  const { runDaemon, buildPluginRegistry, StartAbortedError } = await import('../../daemon/index.js');
  const startAborted: StartAborted = (error) => error instanceof StartAbortedError;
  const { loaded } = set;
  const abort = new AbortController();
  const signals = onShutdownSignals(() => shutdown(context, starting, abort, startAborted));
  let started: Daemon | undefined;
  const reload = sighupReload(context, () => (started === undefined ? undefined : [started]));
  process.on('SIGHUP', reload);

  // Installed above, before this start: a signal from here on stops what has started.
  const starting = runDaemon({
    loaded,
    registry: buildPluginRegistry(),
    catchUp: invocation.options.catchUp,
    signal: abort.signal,
    ...(invocation.options.port === undefined ? {} : { port: invocation.options.port }),
  });
  try {
    const daemon = await starting;
    started = daemon;
    context.secrets.push(...daemon.env.secrets());
    context.output.note(`supply-sync is running; status at ${daemon.opsUrl}/status`);
  } catch (error) {
    if (!startAborted(error)) {
      signals.remove();
      process.off('SIGHUP', reload);
      throw error;
    }
  }
  await signals.exited;
  process.off('SIGHUP', reload);
}

/** Every company of an office in this process, until SIGTERM or SIGINT; SIGHUP reads the office's files again. */
async function runOfficeCommand(
  context: CliContext,
  office: OfficeConfig,
  options: RunOptions,
): Promise<void> {
  const { runOffice, buildPluginRegistry } = await import('../../daemon/index.js');
  const abort = new AbortController();
  const starting = runOffice({
    office,
    registry: buildPluginRegistry(),
    catchUp: options.catchUp,
    port: options.port,
    signal: abort.signal,
    env: context.env,
  });
  // A signal while the companies start gives up the starts under way and those not begun, then stops the others.
  const signals = onShutdownSignals(async () => {
    abort.abort();
    const { unfinished } = await (await starting).stop(SHUTDOWN_TIMEOUT_MS);
    if (unfinished.length > 0) context.output.note(`stopped with unfinished jobs: ${unfinished.join(', ')}`);
  });
  let running: OfficeDaemon | undefined;
  const reload = officeSighup(context, () => running);
  process.on('SIGHUP', reload);
  try {
    const started = await starting;
    running = started;
    context.secrets.push(...started.secrets());
    const failed = started.companies().filter((entry) => entry.state === 'failed');
    if (failed.length > 0) {
      const names = failed.map((entry) => entry.name).join(', ');
      context.output.note(
        `companies that did not start: ${names}; the office status page and the log say why`,
      );
    }
    const count = started.companies().filter((entry) => entry.state === 'running').length;
    context.output.note(
      `supply-sync office is running: ${count} ${count === 1 ? 'company' : 'companies'}; status at ${started.url}/status`,
    );
  } catch (error) {
    signals.remove();
    process.off('SIGHUP', reload);
    throw error;
  }
  await signals.exited;
  process.off('SIGHUP', reload);
}

export const RUN_COMMAND: CommandSpec = {
  name: 'run',
  description: 'run the daemon: schedules, webhooks, operations server',
  options: [
    { flags: '--port <port>', description: 'operations server port (overrides server.port)', parse: Number },
    {
      flags: '--no-catch-up',
      description: 'do not run jobs whose scheduled time passed while the daemon was down',
    },
  ],
  run: runDaemonCommand,
};
