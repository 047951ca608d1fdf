/** `supply-sync runs`: the run history, newest first; read-only, so it works beside a running daemon. */
import type { CommandSpec, Invocation } from '../command-spec.js';
import { parseDuration } from '../../config/duration.js';
import { deepScrub, scrubSecrets } from '../../log/index.js';
import type { RunRecord } from '../../state/index.js';
import { wallTime } from '../../ops/time-format.js';
import { globalOptions, loadCliConfig } from '../context.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { openStateForReading, withState } from '../state-access.js';

interface RunsOptions {
  job?: string;
  failed?: boolean;
  since?: string;
  limit: string;
  json?: boolean;
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

function line(run: RunRecord, timeZone: string, secrets: readonly string[]): string {
  const counts = Object.entries(run.counts)
    .map(([name, count]) => `${name}=${count}`)
    .join(' ');
  const duration =
    run.endedAt === null ? 'running' : `${((run.endedAt - run.startedAt) / 1000).toFixed(1)} s`;
  const letters = run.deadLetters
    ? `; ${run.deadLetters} dead letter${run.deadLetters === 1 ? '' : 's'}`
    : '';
  const error = run.error === null ? '' : `; ${scrubSecrets(run.error, secrets)}`;
  return (
    `#${run.id} ${run.job} ${wallTime(run.startedAt, timeZone)} ${askedBy(run)} ${run.outcome ?? 'running'} ` +
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
  const { config, file } = await loadCliConfig(context, globalOptions(command).config);
  if (options.job !== undefined && config.jobs[options.job] === undefined) {
    const known = Object.keys(config.jobs).join(', ') || 'none';
    throw new CliError(`no job "${options.job}" in ${file} (jobs: ${known})`, 'unknown_job');
  }
  const runs = await withState(
    () => openStateForReading(config.state),
    (state) =>
      state.runs.list({
        ...(options.job === undefined ? {} : { job: options.job }),
        failed: options.failed === true,
        ...(since === undefined ? {} : { since }),
        limit,
      }),
  );
  // A run's error can quote what it was sent or answered: the config's secrets are replaced, as in the control API.
  if (options.json) return context.output.line(JSON.stringify(deepScrub(runs, context.secrets), null, 2));
  if (runs.length === 0) return context.output.line('no runs');
  for (const run of runs) context.output.line(line(run, config.timezone, context.secrets));
}

export const RUNS_COMMAND: CommandSpec = {
  name: 'runs',
  description:
    'the run history: trigger and who asked, start, outcome, counts, dead letters created and first error',
  options: [
    { flags: '--job <name>', description: 'only this job' },
    { flags: '--failed', description: 'only runs that failed or ended partial' },
    { flags: '--since <duration>', description: 'only runs started within this long, e.g. 24h' },
    { flags: '--limit <n>', description: 'at most this many runs', default: '100' },
    { flags: '--json', description: 'print JSON' },
  ],
  run: listRuns,
};
