/** `supply-sync sync <job> [--dry-run]`: one run of one job, with its outcome and counts. */
import { requiredArgument, type CommandSpec, type Invocation } from '../command-spec.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { giveCommand, requestedByCli } from '../control.js';
import { CliError } from '../errors.js';
import { apiKeySettingName } from '../../config/index.js';
import type { RunResult } from '../../engine/index.js';
import { withRunErrorFix } from '../../notify/index.js';

interface SyncOptions {
  dryRun?: boolean;
  wait: boolean;
}

/**
 * Every reason the dry run held records back for, each once with its count: the run's error keeps only the first
 * few, and a person clearing mappings before the first real run needs all of them at once.
 */
function printHeldBackReasons(context: CliContext, job: string, result: RunResult): void {
  const tally = result.tally;
  const reasons = Object.entries(tally?.reasons ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (tally === undefined || reasons.length === 0) return;
  context.output.line(`${job}: dry run: ${tally.unit} held back, for each reason (${reasons.length}):`);
  for (const [reason, count] of reasons) context.output.line(`  ${reason} (${count} ${tally.unit})`);
}

/**
 * Prints the run's outcome and counts; a failed run (or a dry run with problems) is an error, with the fix when the
 * API refused the key (`keySetting`: the setting to change, as the config names it).
 */
function reportRun(
  context: CliContext,
  job: string,
  result: RunResult,
  options: { dryRun: boolean; keySetting: string },
): void {
  const { dryRun } = options;
  const counts = Object.entries(result.counts)
    .map(([name, count]) => `${name}=${count}`)
    .join(' ');
  const outcome = dryRun ? `dry run ${result.outcome}` : result.outcome;
  context.output.line(`${job}: ${outcome}${counts ? ` (${counts})` : ''}`);
  if (dryRun) {
    printHeldBackReasons(context, job, result);
    context.output.line(`${job}: dry run: nothing was written and no run was recorded in the state file`);
    if (result.outcome === 'failed' || result.error !== undefined) {
      throw new CliError(`${job} dry run: ${result.error ?? 'see the log'}`, 'dry_run_problems');
    }
  }
  if (result.outcome === 'failed') {
    const error =
      result.error === undefined ? 'see the log' : withRunErrorFix(result.error, options.keySetting);
    throw new CliError(`${job} failed: ${error}`, 'run_failed');
  }
}

async function syncJob({ context, args, options, command }: Invocation<SyncOptions>): Promise<void> {
  const job = requiredArgument(args, 0);
  const { runJobOnce, buildPluginRegistry } = await import('../../daemon/index.js');
  const loaded = await loadCliConfig(context, globalOptions(command));
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
        requestedBy: requestedByCli(),
      });
    const given = options.dryRun
      ? { via: 'direct' as const, result: await run() }
      : await giveCommand(context, {
          loaded,
          action: { kind: 'sync', job },
          direct: run,
          wait: options.wait,
        });
    context.output.done();
    if (given.via === 'queued') {
      return context.output.line(`${job}: queued for the running daemon as command #${given.id}`);
    }
    reportRun(context, job, given.result, {
      dryRun: options.dryRun === true,
      keySetting: apiKeySettingName(loaded),
    });
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}

export const SYNC_COMMAND: CommandSpec = {
  name: 'sync',
  description: 'run one job now and print its outcome; a running daemon carries it out',
  arguments: [{ name: '<job>', description: 'job name from the config' }],
  options: [
    {
      flags: '--dry-run',
      description:
        'report what a run would do; change nothing in the API, the target system or the state file',
    },
    {
      flags: '--no-wait',
      description: 'with a running daemon: only queue the run now, do not wait for its outcome',
    },
  ],
  run: syncJob,
};
