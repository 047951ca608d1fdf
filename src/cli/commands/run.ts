/**
 * `supply-sync run`: the daemon, until SIGTERM or SIGINT. The signal handlers are installed before the start, so a
 * signal while the daemon starts (a slow API, a slow connector) stops what has started and ends the process.
 */
import type { Command } from 'commander';
import type { Daemon } from '../../daemon/index.js';
import { handleShutdownSignals } from '../../scheduler/index.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';

const SHUTDOWN_TIMEOUT_MS = 30_000;

export function registerRunCommand(program: Command, context: CliContext): void {
  program
    .command('run')
    .description('run the daemon: schedules, webhooks, operations server')
    .option('--port <port>', 'operations server port (overrides server.port)', (value) => Number(value))
    .option('--no-catch-up', 'do not run jobs whose scheduled time passed while the daemon was down')
    .action(async (options: { port?: number; catchUp: boolean }, command: Command) => {
      const { runDaemon, buildPluginRegistry, StartAbortedError } = await import('../../daemon/index.js');
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      const abort = new AbortController();

      /** Stops the daemon, or the start under way; rejects when a service failed to stop (exit code 1). */
      const shutdown = async (): Promise<void> => {
        abort.abort();
        let daemon: Daemon;
        try {
          daemon = await starting;
        } catch (error) {
          if (error instanceof StartAbortedError) {
            context.output.note('stopped before the start completed');
            return;
          }
          throw error; // reported by the start below
        }
        try {
          const { unfinished } = await daemon.stop(SHUTDOWN_TIMEOUT_MS);
          if (unfinished.length > 0)
            context.output.note(`stopped with unfinished jobs: ${unfinished.join(', ')}`);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          context.output.note(`the daemon did not stop cleanly (${reason}); the log says why`);
          throw error;
        }
      };

      let removeHandlers = (): void => undefined;
      const exited = new Promise<void>((resolve) => {
        removeHandlers = handleShutdownSignals({
          shutdown,
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

      // SIGHUP reloads the config's mappings; it never ends the process (Node's default), also while starting.
      let started: Daemon | undefined;
      const reload = (): void => {
        if (started === undefined) {
          context.output.note('SIGHUP ignored: the daemon is still starting');
          return;
        }
        try {
          const outcome = started.reloadConfig('signal:SIGHUP');
          if (!outcome.ok) context.output.note(`config reload refused: ${outcome.error.message}`);
        } catch (error) {
          context.output.note(
            `config reload failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      };
      process.on('SIGHUP', reload);

      // Installed above, before this start: a signal from here on stops what has started.
      const starting = runDaemon({
        loaded,
        registry: buildPluginRegistry(),
        catchUp: options.catchUp,
        signal: abort.signal,
        ...(options.port === undefined ? {} : { port: options.port }),
      });
      try {
        const daemon = await starting;
        started = daemon;
        context.secrets.push(...daemon.env.secrets());
        context.output.note(`supply-sync is running; status at ${daemon.opsUrl}/status`);
      } catch (error) {
        if (!(error instanceof StartAbortedError)) {
          removeHandlers();
          process.off('SIGHUP', reload);
          throw error;
        }
      }
      await exited;
      process.off('SIGHUP', reload);
    });
}
