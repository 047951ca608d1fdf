/** `supply-sync runs`: the run history, newest first; read-only, so it works beside a running daemon. */
import type { CommandSpec, Invocation } from '../command-spec.js';
import { parseDuration } from '../../config/duration.js';
import { deepScrub, scrubSecrets } from '../../log/index.js';
import { existsSync } from 'node:fs';
import { apiKeySettingName, type LoadedConfig } from '../../config/index.js';
import { withRunErrorFix } from '../../notify/index.js';
import type { RunRecord, StateStore } from '../../state/index.js';
import { wallTime } from '../../ops/time-format.js';
import {
  globalOptions,
  loadCliConfig,
  loadCliCompanies,
  type CliContext,
  type GlobalOptions,
} from '../context.js';
import { jobTarget } from './jobs.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { openStateForReading, withState } from '../state-access.js';

interface RunsOptions {
  job?: string;
  failed?: boolean;
  since?: string;
  limit: string;
  json?: boolean;
  all?: boolean;
}

function sinceMs(since: string | undefined, now: number): number | undefined {
  if (since === undefined) return undefined;
  const ms = parseDuration(since);
  if (ms === undefined) {
    throw new CliError(
      `--since: expected a duration like "24h", "30m" or "7d", got "${since}"`,
      'usage',
      EXIT_USAGE,
    );
  }
  return now - ms;
}

/** The trigger, and who asked when that is more than the trigger says (an operator command's caller). */
export function askedBy(run: Pick<RunRecord, 'trigger' | 'requestedBy'>): string {
  return run.requestedBy === run.trigger ? run.trigger : `${run.trigger} by ${run.requestedBy}`;
}

/** `zone`: the zone's name after each time, when the runs listed are in more than one zone. */
function line(shown: CompanyRun, secrets: readonly string[], zone: boolean): string {
  const { run, timeZone } = shown;
  const counts = Object.entries(run.counts)
    .map(([name, count]) => `${name}=${count}`)
    .join(' ');
  const duration =
    run.endedAt === null ? 'running' : `${((run.endedAt - run.startedAt) / 1000).toFixed(1)} s`;
  const letters = run.deadLetters
    ? `; ${run.deadLetters} dead letter${run.deadLetters === 1 ? '' : 's'}`
    : '';
  const error =
    run.error === null ? '' : `; ${scrubSecrets(withRunErrorFix(run.error, shown.keySetting), secrets)}`;
  return (
    `#${run.id} ${run.job} ${wallTime(run.startedAt, timeZone)}${zone ? ` ${timeZone}` : ''} ${askedBy(run)} ` +
    `${run.outcome ?? 'running'} ` +
    `(${duration}${counts ? `; ${counts}` : ''}${letters})${error}`
  );
}

async function listRuns({ context, options, command }: Invocation<RunsOptions>): Promise<void> {
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit <= 0) {
    throw new CliError(
      `--limit: expected a positive whole number, got "${options.limit}"`,
      'usage',
      EXIT_USAGE,
    );
  }
  const since = sinceMs(options.since, Date.now());
  const { configs, job } = await chosenRuns(context, globalOptions(command), options);
  if (job !== undefined) requireJob(configs, job);
  const filter = {
    ...(job === undefined ? {} : { job }),
    failed: options.failed === true,
    ...(since === undefined ? {} : { since }),
    limit,
  };
  const runs = (await Promise.all(configs.map((loaded) => companyRuns(loaded, filter, options.all === true))))
    .flat()
    .sort((a, b) => b.run.startedAt - a.run.startedAt)
    .slice(0, limit);
  // A run's error can quote what it was sent or answered: the config's secrets are replaced, as in the control API.
  if (options.json) {
    const shown = runs.map(({ run, company }) => (options.all ? { company, ...run } : run));
    return context.output.line(JSON.stringify(deepScrub(shown, context.secrets), null, 2));
  }
  if (runs.length === 0) return context.output.line('no runs');
  const zones = new Set(runs.map((each) => each.timeZone));
  for (const shown of runs) {
    const { run, company } = shown;
    const named = company === null ? run : { ...run, job: `${company}/${run.job}` };
    context.output.line(line({ ...shown, run: named }, context.secrets, zones.size > 1));
  }
  if (zones.size === 1) context.output.line(`(times in ${[...zones].join('')})`);
}

/**
 * The configs whose runs to list and the job to keep. `<company>/<job>` names a company's job as the lines of
 * `runs --all` show it (and as `jobs pause` takes it); a bare name with --all is that job in every company.
 */
async function chosenRuns(
  context: CliContext,
  global: GlobalOptions,
  options: RunsOptions,
): Promise<{ configs: readonly LoadedConfig[]; job: string | undefined }> {
  if (!options.all) {
    if (options.job === undefined) return { configs: [await loadCliConfig(context, global)], job: undefined };
    const target = jobTarget(options.job, global);
    return { configs: [await loadCliConfig(context, target.global)], job: target.job };
  }
  const configs = (await loadCliCompanies(context, global)).configs;
  const slash = options.job?.indexOf('/') ?? -1;
  if (options.job === undefined || slash < 0) return { configs, job: options.job };
  const company = options.job.slice(0, slash);
  const job = options.job.slice(slash + 1);
  if (company === '' || job === '') {
    throw new CliError(`--job "${options.job}": name a job as <job> or <company>/<job>`, 'usage', EXIT_USAGE);
  }
  const chosen = configs.filter((loaded) => loaded.company?.name === company);
  if (chosen.length === 0) {
    const known = configs.map((loaded) => loaded.company?.name ?? loaded.file).join(', ') || 'none';
    throw new CliError(
      `no company "${company}" in the office (companies: ${known}); name the job as <company>/<job> with one of them`,
      'unknown_job',
    );
  }
  return { configs: chosen, job };
}

function requireJob(configs: readonly LoadedConfig[], job: string): void {
  if (configs.some((loaded) => loaded.config.jobs[job] !== undefined)) return;
  const known =
    [...new Set(configs.flatMap((loaded) => Object.keys(loaded.config.jobs)))].join(', ') || 'none';
  const file = configs.length === 1 ? (configs[0] as LoadedConfig).file : 'any company';
  throw new CliError(`no job "${job}" in ${file} (jobs: ${known})`, 'unknown_job');
}

interface CompanyRun {
  run: RunRecord;
  company: string | null;
  timeZone: string;
  /** The setting a refused key is fixed at, as this company's config names it. */
  keySetting: string;
}

/** One company's runs; with --all a company that has not run yet (no state file) has none. */
async function companyRuns(
  loaded: LoadedConfig,
  filter: Parameters<StateStore['runs']['list']>[0],
  all: boolean,
): Promise<CompanyRun[]> {
  const { state, timezone } = loaded.config;
  if (all && state.url === undefined && !existsSync(state.path)) return [];
  const company = all ? (loaded.company?.name ?? null) : null;
  const runs = await withState(
    () => openStateForReading(state),
    (opened) => opened.runs.list(filter),
  );
  const keySetting = apiKeySettingName(loaded);
  return runs.map((run) => ({ run, company, timeZone: timezone, keySetting }));
}

export const RUNS_COMMAND: CommandSpec = {
  name: 'runs',
  description:
    'the run history: trigger and who asked, start, outcome, counts, dead letters created and first error',
  options: [
    { flags: '--job <name>', description: 'only this job; <company>/<job> for one company of an office' },
    { flags: '--failed', description: 'only runs that failed or ended partial' },
    { flags: '--since <duration>', description: 'only runs started within this long, e.g. 24h' },
    { flags: '--limit <n>', description: 'at most this many runs', default: '100' },
    { flags: '--json', description: 'print JSON' },
    { flags: '--all', description: 'with an office config: every company, jobs named <company>/<job>' },
  ],
  run: listRuns,
};
