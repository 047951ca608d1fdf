/** `supply-sync run`: the daemon, until SIGTERM or SIGINT. */
import type { Command } from 'commander';
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
      const { startDaemon, buildRegistries } = await import('../../daemon/index.js');
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      const daemon = await startDaemon({
        loaded,
        registries: buildRegistries(),
        catchUp: options.catchUp,
        ...(options.port === undefined ? {} : { port: options.port }),
      });
      context.secrets.push(...daemon.env.secrets());
      context.output.note(`supply-sync is running; status at ${daemon.opsUrl}/status`);
      await new Promise<void>((resolve) => {
        handleShutdownSignals({
          shutdown: async () => {
            const { unfinished } = await daemon.stop(SHUTDOWN_TIMEOUT_MS);
            if (unfinished.length > 0)
              context.output.note(`stopped with unfinished jobs: ${unfinished.join(', ')}`);
          },
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
    });
}
