/** `supply-sync status [--json]`: jobs, freshness, dead letters, outbox and inbox from the state file. */
import type { Command } from 'commander';
import { stateOverview } from '../../engine/index.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { openStateForReading, withState } from '../state-access.js';

function ago(ms: number | null, now: number): string {
  if (ms === null) return 'never';
  const minutes = Math.round((now - ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 120) return `${minutes} min ago`;
  return `${Math.round(minutes / 60)} h ago`;
}

export function registerStatusCommand(program: Command, context: CliContext): void {
  program
    .command('status')
    .description('show each job (last run, last success, errors), dead letters, outbox and inbox')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { config: file } = globalOptions(command);
      const { config } = await loadCliConfig(context, file);
      const jobs = Object.keys(config.jobs);
      const overview = await withState(
        () => openStateForReading(config.state.path),
        (state) => stateOverview(state, jobs),
      );
      if (options.json) {
        context.output.line(JSON.stringify(overview, null, 2));
        return;
      }
      const now = Date.now();
      for (const job of overview.jobs) {
        const spec = config.jobs[job.job];
        const state =
          spec?.enabled === false
            ? 'disabled'
            : job.running
              ? 'running'
              : (job.lastRun?.outcome ?? 'no runs');
        const error = job.lastError
          ? `; last error ${ago(job.lastError.at, now)}: ${job.lastError.message}`
          : '';
        context.output.line(
          `${job.job.padEnd(16)} ${state.padEnd(9)} last success ${ago(job.lastSuccessAt, now)}; ` +
            `dead letters ${job.openDeadLetters}${error}`,
        );
      }
      context.output.line(
        `dead letters open ${overview.openDeadLetters}; outbox pending ${overview.outbox.pending}, dead ${overview.outbox.dead}; ` +
          `webhook inbox pending ${overview.inbox.pending}`,
      );
    });
}
