/** `supply-sync jobs pause|resume`: hold a job's runs back and let them go again, with or without a running daemon. */
import type { Command } from 'commander';
import { giveStateCommand } from '../control.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';

export function registerJobCommands(program: Command, context: CliContext): void {
  const jobs = program.command('jobs').description('pause or resume a job');

  jobs
    .command('pause')
    .argument('<job>', 'job name from the config')
    .option('--reason <text>', 'why, shown on the status page, in /readyz and in `status`')
    .option('--json', 'print JSON')
    .description(
      'no scheduled, catch-up or webhook runs until `jobs resume` (a run in progress ends normally); webhooks are still stored and run after the resume',
    )
    .action(async (job: string, options: { reason?: string; json?: boolean }, command: Command) => {
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      const given = await giveStateCommand(
        context,
        loaded,
        { kind: 'jobs.pause', job, reason: options.reason ?? null },
        'jobs pause',
      );
      if (options.json && given.via !== 'queued')
        return context.output.line(JSON.stringify(given.result, null, 2));
      context.output.line(`${job} paused${options.reason === undefined ? '' : `: ${options.reason}`}`);
    });

  jobs
    .command('resume')
    .argument('<job>', 'job name from the config')
    .option('--json', 'print JSON')
    .description('let a paused job run again; webhooks stored while it was paused run now')
    .action(async (job: string, options: { json?: boolean }, command: Command) => {
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      const given = await giveStateCommand(context, loaded, { kind: 'jobs.resume', job }, 'jobs resume');
      if (options.json && given.via !== 'queued')
        return context.output.line(JSON.stringify(given.result, null, 2));
      context.output.line(`${job} resumed`);
    });
}
