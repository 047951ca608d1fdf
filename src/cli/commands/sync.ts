/** `supply-sync sync <job> [--dry-run]`: one run of one job, with its outcome and counts. */
import type { Command } from 'commander';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { giveCommand } from '../control.js';
import { CliError } from '../errors.js';

export function registerSyncCommand(program: Command, context: CliContext): void {
  program
    .command('sync')
    .argument('<job>', 'job name from the config')
    .option(
      '--dry-run',
      'report what a run would do; change nothing in the API, the target system or the state file',
    )
    .option('--no-wait', 'with a running daemon: only queue the run now, do not wait for its outcome')
    .description('run one job now and print its outcome; a running daemon carries it out')
    .action(async (job: string, options: { dryRun?: boolean; wait: boolean }, command: Command) => {
      const { runJobOnce, buildPluginRegistry } = await import('../../daemon/index.js');
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      context.output.progress(`running ${job}...`);
      const controller = new AbortController();
      const abort = (): void => controller.abort(new Error('interrupted'));
      process.once('SIGINT', abort);
      process.once('SIGTERM', abort);
      try {
        const run = () =>
          runJobOnce({
            loaded,
            registry: buildPluginRegistry(),
            job,
            dryRun: options.dryRun === true,
            signal: controller.signal,
          });
        const given = options.dryRun
          ? { via: 'direct' as const, result: await run() }
          : await giveCommand(context, {
              loaded,
              action: { kind: 'sync', job },
              direct: run,
              wait: options.wait,
            });
        if (given.via === 'queued') {
          context.output.done();
          return context.output.line(`${job}: queued for the running daemon as command #${given.id}`);
        }
        const { result } = given;
        context.output.done();
        const counts = Object.entries(result.counts)
          .map(([name, count]) => `${name}=${count}`)
          .join(' ');
        const outcome = options.dryRun ? `dry run ${result.outcome}` : result.outcome;
        context.output.line(`${job}: ${outcome}${counts ? ` (${counts})` : ''}`);
        if (options.dryRun) {
          context.output.line(
            `${job}: dry run: nothing was written and no run was recorded in the state file`,
          );
          if (result.outcome === 'failed' || result.error !== undefined) {
            throw new CliError(`${job} dry run: ${result.error ?? 'see the log'}`, 'dry_run_problems');
          }
        }
        if (result.outcome === 'failed') {
          throw new CliError(`${job} failed: ${result.error ?? 'see the log'}`, 'run_failed');
        }
      } finally {
        process.off('SIGINT', abort);
        process.off('SIGTERM', abort);
      }
    });
}
