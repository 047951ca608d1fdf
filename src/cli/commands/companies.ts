/**
 * `supply-sync companies pause|resume <company>`: every job of one company of an office held back, or let go again,
 * as `jobs pause <company>/<job>` would do it job by job (each a command of its own, recorded with who asked).
 */
import type { LoadedConfig } from '../../config/index.js';
import { requiredArgument, type CommandSpec, type Invocation } from '../command-spec.js';
import { giveStateCommand } from '../control.js';
import { type CliContext, globalOptions, loadCliConfig } from '../context.js';
import { CliError, EXIT_USAGE } from '../errors.js';

type Change = 'pause' | 'resume';

interface CompanyChange {
  company: string;
  /** The jobs this command paused (or resumed). */
  changed: string[];
  /** The jobs that were paused already (or were not paused). */
  unchanged: string[];
  /** The jobs that could not be changed, with why. */
  failed: Array<{ job: string; error: string }>;
}

const NOTHING_TO_DO: Record<Change, string> = { pause: 'job_paused_already', resume: 'job_not_paused' };

async function companyOf(context: CliContext, invocation: Invocation): Promise<LoadedConfig> {
  const company = requiredArgument(invocation.args, 0);
  const verb = invocation.command.name();
  const global = globalOptions(invocation.command);
  if (global.company !== undefined && global.company !== company) {
    throw new CliError(
      `companies ${verb} ${company}: --company (or SUPPLY_SYNC_COMPANY) says ${global.company}; give one of them`,
      'usage',
      EXIT_USAGE,
    );
  }
  const companyFrom = {
    label: `companies ${verb} ${company}`,
    instead: `use \`supply-sync jobs ${verb} <job>\` for each job`,
  };
  return loadCliConfig(context, { ...global, company, companyFrom });
}

/** Each job in turn; one that cannot be changed is told and the others are still changed. */
async function changeEvery(
  context: CliContext,
  loaded: LoadedConfig,
  change: Change,
  reason: string | null,
): Promise<CompanyChange> {
  const result: CompanyChange = {
    company: loaded.company?.name ?? loaded.file,
    ...{ changed: [], unchanged: [], failed: [] },
  };
  for (const job of Object.keys(loaded.config.jobs)) {
    const action =
      change === 'pause'
        ? { kind: 'jobs.pause' as const, job, reason }
        : { kind: 'jobs.resume' as const, job };
    try {
      await giveStateCommand(context, loaded, action, `companies ${change}`);
      result.changed.push(job);
    } catch (error) {
      if (error instanceof CliError && error.code === NOTHING_TO_DO[change]) result.unchanged.push(job);
      else result.failed.push({ job, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}

function report(context: CliContext, change: Change, result: CompanyChange, json: boolean | undefined): void {
  if (json) context.output.line(JSON.stringify(result, null, 2));
  else context.output.line(summaryLine(change, result));
  for (const { job, error } of result.failed)
    context.output.note(`${result.company}/${job}: not ${change}d: ${error}`);
  if (result.failed.length > 0) {
    throw new CliError(
      `${result.failed.length} of the company's jobs could not be ${change}d (above); the others were`,
      'partly_done',
    );
  }
}

function summaryLine(change: Change, result: CompanyChange): string {
  const done = change === 'pause' ? 'paused' : 'resumed';
  const already = change === 'pause' ? 'paused already' : 'not paused';
  const parts = [
    result.changed.length === 0 ? `no job ${done}` : `${done}: ${result.changed.join(', ')}`,
    ...(result.unchanged.length === 0 ? [] : [`${already}: ${result.unchanged.join(', ')}`]),
  ];
  return `${result.company}: ${parts.join('; ')}`;
}

function handler(change: Change) {
  return async (invocation: Invocation<{ reason?: string; json?: boolean }>): Promise<void> => {
    const { context, options } = invocation;
    const loaded = await companyOf(context, invocation);
    const result = await changeEvery(context, loaded, change, options.reason ?? null);
    report(context, change, result, options.json);
  };
}

const COMPANY_ARGUMENT = {
  name: '<company>',
  description: "the company's name (its file in the companies folder)",
};

export const COMPANY_COMMANDS: CommandSpec = {
  name: 'companies',
  description: "pause or resume every job of one company of an office, the others' runs going on",
  subcommands: [
    {
      name: 'pause',
      description:
        "pause each of the company's jobs, as `jobs pause <company>/<job>` does (a run in progress ends normally; webhooks are still stored)",
      arguments: [COMPANY_ARGUMENT],
      options: [
        { flags: '--reason <text>', description: 'why, shown on the status pages and in `status`' },
        { flags: '--json', description: 'print JSON' },
      ],
      run: handler('pause'),
    },
    {
      name: 'resume',
      description: "resume each of the company's paused jobs; webhooks stored meanwhile run now",
      arguments: [COMPANY_ARGUMENT],
      options: [{ flags: '--json', description: 'print JSON' }],
      run: handler('resume'),
    },
  ],
};
