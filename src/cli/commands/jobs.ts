/** `supply-sync jobs pause|resume`: hold a job's runs back and let them go again, with or without a running daemon. */
import { requiredArgument, type CommandSpec, type Invocation } from '../command-spec.js';
import { giveStateCommand } from '../control.js';
import { globalOptions, loadCliConfig } from '../context.js';

async function pauseJob({
  context,
  args,
  options,
  command,
}: Invocation<{ reason?: string; json?: boolean }>): Promise<void> {
  const job = requiredArgument(args, 0);
  const loaded = await loadCliConfig(context, globalOptions(command));
  const given = await giveStateCommand(
    context,
    loaded,
    { kind: 'jobs.pause', job, reason: options.reason ?? null },
    'jobs pause',
  );
  if (options.json && given.via !== 'queued')
    return context.output.line(JSON.stringify(given.result, null, 2));
  context.output.line(`${job} paused${options.reason === undefined ? '' : `: ${options.reason}`}`);
}

async function resumeJob({ context, args, options, command }: Invocation<{ json?: boolean }>): Promise<void> {
  const job = requiredArgument(args, 0);
  const loaded = await loadCliConfig(context, globalOptions(command));
  const given = await giveStateCommand(context, loaded, { kind: 'jobs.resume', job }, 'jobs resume');
  if (options.json && given.via !== 'queued')
    return context.output.line(JSON.stringify(given.result, null, 2));
  context.output.line(`${job} resumed`);
}

const JOB_ARGUMENT = { name: '<job>', description: 'job name from the config' };

export const JOB_COMMANDS: CommandSpec = {
  name: 'jobs',
  description: 'pause or resume a job',
  subcommands: [
    {
      name: 'pause',
      description:
        'no scheduled, catch-up or webhook runs until `jobs resume` (a run in progress ends normally); webhooks are still stored and run after the resume',
      arguments: [JOB_ARGUMENT],
      options: [
        {
          flags: '--reason <text>',
          description: 'why, shown on the status page, in /readyz and in `status`',
        },
        { flags: '--json', description: 'print JSON' },
      ],
      run: pauseJob,
    },
    {
      name: 'resume',
      description: 'let a paused job run again; webhooks stored while it was paused run now',
      arguments: [JOB_ARGUMENT],
      options: [{ flags: '--json', description: 'print JSON' }],
      run: resumeJob,
    },
  ],
};
