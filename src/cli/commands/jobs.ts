/** `supply-sync jobs pause|resume`: hold a job's runs back and let them go again, with or without a running daemon. */
import { requiredArgument, type CommandSpec, type Invocation } from '../command-spec.js';
import { giveStateCommand } from '../control.js';
import { globalOptions, loadCliConfig, type GlobalOptions } from '../context.js';
import { CliError, EXIT_USAGE } from '../errors.js';

/**
 * `<company>/<job>` names a job of an office's company, as `status --all` and `runs --all` show it; a bare job name
 * is a job of the config, or of the company --company names.
 */
export function jobTarget(arg: string, global: GlobalOptions): { global: GlobalOptions; job: string } {
  const slash = arg.indexOf('/');
  if (slash < 0) return { global, job: arg };
  const company = arg.slice(0, slash);
  const job = arg.slice(slash + 1);
  if (company === '' || job === '') {
    throw new CliError(`"${arg}": name a job as <job> or <company>/<job>`, 'usage', EXIT_USAGE);
  }
  if (global.company !== undefined && global.company !== company) {
    throw new CliError(
      `"${arg}" names company ${company}, but --company (or SUPPLY_SYNC_COMPANY) says ${global.company}: give one of them`,
      'usage',
      EXIT_USAGE,
    );
  }
  const companyFrom = { label: `"${arg}"`, instead: `name the job without a company: \`${job}\`` };
  return { global: { ...global, company, companyFrom }, job };
}

async function pauseJob({
  context,
  args,
  options,
  command,
}: Invocation<{ reason?: string; json?: boolean }>): Promise<void> {
  const { global, job } = jobTarget(requiredArgument(args, 0), globalOptions(command));
  const loaded = await loadCliConfig(context, global);
  const given = await giveStateCommand(
    context,
    loaded,
    { kind: 'jobs.pause', job, reason: options.reason ?? null },
    'jobs pause',
  );
  if (options.json && given.via !== 'queued')
    return context.output.line(JSON.stringify(given.result, null, 2));
  context.output.line(
    `${shownJob(global, job)} paused${options.reason === undefined ? '' : `: ${options.reason}`}`,
  );
}

async function resumeJob({ context, args, options, command }: Invocation<{ json?: boolean }>): Promise<void> {
  const { global, job } = jobTarget(requiredArgument(args, 0), globalOptions(command));
  const loaded = await loadCliConfig(context, global);
  const given = await giveStateCommand(context, loaded, { kind: 'jobs.resume', job }, 'jobs resume');
  if (options.json && given.via !== 'queued')
    return context.output.line(JSON.stringify(given.result, null, 2));
  context.output.line(`${shownJob(global, job)} resumed`);
}

function shownJob(global: GlobalOptions, job: string): string {
  return global.company === undefined ? job : `${global.company}/${job}`;
}

const JOB_ARGUMENT = {
  name: '<job>',
  description: 'job name from the config; <company>/<job> for a company of an office',
};

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
