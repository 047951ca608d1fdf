/** `supply-sync status [--json]`: jobs, freshness, dead letters, outbox and inbox from the state file. */
import type { Command } from 'commander';
import { jobStatuses } from '../../daemon/job-status.js';
import { deepScrub, scrubSecrets } from '../../log/index.js';
import { stateOverview } from '../../engine/index.js';
import { jobCheck } from '../../ops/readiness.js';
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
      const now = Date.now();
      // The job-health model /readyz and the status page use, read from the state file.
      const { overview, health } = await withState(
        () => openStateForReading(config.state),
        (state) => ({
          overview: stateOverview(state, jobs),
          health: new Map(
            jobStatuses({
              jobs: Object.entries(config.jobs),
              state,
              defaultTimezone: config.timezone,
              now,
            }).map((job) => [job.name, jobCheck(job, now, context.secrets, config.timezone)] as const),
          ),
        }),
      );
      if (options.json) {
        const withHealth = {
          ...overview,
          jobs: overview.jobs.map((job) => {
            const check = health.get(job.job);
            return check === undefined
              ? job
              : { ...job, health: { state: check.state, ok: check.ok, detail: check.detail ?? null } };
          }),
        };
        // Errors are stored as they came: the config's secrets are replaced, as on the status page.
        context.output.line(JSON.stringify(deepScrub(withHealth, context.secrets), null, 2));
        return;
      }
      for (const job of overview.jobs) {
        const spec = config.jobs[job.job];
        const state =
          spec?.enabled === false
            ? 'disabled'
            : job.running
              ? 'running'
              : (job.lastRun?.outcome ?? 'no runs');
        const error = job.lastError
          ? `; last error ${ago(job.lastError.at, now)}: ${scrubSecrets(job.lastError.message, context.secrets)}`
          : '';
        const check = health.get(job.job);
        const readiness =
          check === undefined
            ? ''
            : `readiness ${check.ok ? check.state : `${check.state} (${check.detail ?? ''})`}; `;
        // "Last success" as readiness, the status page and metrics count it: the last run that made progress.
        context.output.line(
          `${job.job.padEnd(16)} ${state.padEnd(9)} ${readiness}last success ${ago(job.lastProgressAt, now)}; ` +
            `dead letters ${job.openDeadLetters}${error}`,
        );
      }
      context.output.line(
        `dead letters open ${overview.openDeadLetters}; outbox pending ${overview.outbox.pending}, dead ${overview.outbox.dead}; ` +
          `webhook inbox pending ${overview.inbox.pending}`,
      );
    });
}
