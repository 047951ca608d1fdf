/** `supply-sync runs`: the run history, newest first; read-only, so it works beside a running daemon. */
import type { Command } from 'commander';
import { parseDuration } from '../../config/duration.js';
import { deepScrub, scrubSecrets } from '../../log/index.js';
import type { RunRecord } from '../../state/index.js';
import { wallTime } from '../../ops/time-format.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
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
    `#${run.id} ${run.job} ${wallTime(run.startedAt, timeZone)} ${run.trigger} ${run.outcome ?? 'running'} ` +
    `(${duration}${counts ? `; ${counts}` : ''}${letters})${error}`
  );
}

export function registerRunsCommand(program: Command, context: CliContext): void {
  program
    .command('runs')
    .description('the run history: trigger, start, outcome, counts, dead letters created and first error')
    .option('--job <name>', 'only this job')
    .option('--failed', 'only runs that failed or ended partial')
    .option('--since <duration>', 'only runs started within this long, e.g. 24h')
    .option('--limit <n>', 'at most this many runs', '100')
    .option('--json', 'print JSON')
    .action(async (options: RunsOptions, command: Command) => {
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
    });
}
