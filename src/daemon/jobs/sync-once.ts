/**
 * `supply-sync sync <job>`: one run of one job, outside the daemon (the state file's lock, or on PostgreSQL the
 * leadership lease, keeps the two apart).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { LoadedConfig } from '../../config/index.js';
import type { RunResult } from '../../engine/index.js';
import { Scheduler, type SchedulerTrigger } from '../../scheduler/index.js';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import type { PluginRegistry } from '../plugins/builtin.js';
import { requireNotPaused } from '../control/paused-refusal.js';
import { DaemonStartError } from '../start/start-errors.js';
import { openScratchState, type ScratchState } from './dry-run-state.js';
import { buildEnvironment } from '../services/environment-service.js';
import type { Environment } from '../services/environment.js';
import { jobRun } from './job-run.js';
import { leadershipSettings } from '../start/leadership-settings.js';
import { takeOnceLease, type OnceLease } from './once-lease.js';

export class UnknownJobError extends Error {
  readonly code = 'unknown_job';
}

export interface SyncOnceOptions {
  loaded: LoadedConfig;
  registry: PluginRegistry;
  job: string;
  dryRun?: boolean;
  signal?: AbortSignal;
  budgetMs?: number;
  /** Who asked for the run (the CLI's user and host), recorded in the run history. */
  requestedBy?: string;
}

export async function runJobOnce(options: SyncOnceOptions): Promise<RunResult> {
  requireConfiguredJob(options.loaded, options.job);
  const dryRun = options.dryRun ?? false;
  if (dryRun) refuseDryRunOnSharedState(options.loaded);
  // The lease first: beside a leader, nothing else is opened (see takeOnceLease).
  const lease = dryRun ? undefined : await leaseOnSharedState(options.loaded, options.job);
  try {
    return await runInEnvironment(options, dryRun, lease);
  } finally {
    await lease?.release();
  }
}

async function runInEnvironment(
  options: SyncOnceOptions,
  dryRun: boolean,
  lease: OnceLease | undefined,
): Promise<RunResult> {
  // A dry run never touches the state file: no file created, no run recorded, no cursor or ledger moved.
  const scratch: ScratchState | undefined = dryRun
    ? await openScratchState(options.loaded.config.state.path, systemClock)
    : undefined;
  let env: Environment;
  try {
    env = await openJobEnvironment(options, scratch);
  } catch (error) {
    await scratch?.dispose();
    throw error;
  }
  try {
    lease?.fence(env.state);
    if (!env.jobs.has(options.job)) {
      throw new UnknownJobError(`job "${options.job}" is disabled in ${options.loaded.file}`);
    }
    requireNotPaused(options.job, env.state, env.loaded.config.timezone);
    return await runOnce(env, options, dryRun);
  } finally {
    // The dry run's copy is let go even when closing the environment fails.
    try {
      await env.close();
    } finally {
      await scratch?.dispose();
    }
  }
}

function requireConfiguredJob(loaded: LoadedConfig, job: string): void {
  const { jobs } = loaded.config;
  if (jobs[job] !== undefined) return;
  const known = Object.keys(jobs).join(', ') || 'none';
  throw new UnknownJobError(`no job "${job}" in ${loaded.file} (jobs: ${known})`);
}

/**
 * A dry run works on a private copy of the state file; a copy of a PostgreSQL state is not built yet, and a run on
 * an empty copy would show writes the real state would skip.
 */
function refuseDryRunOnSharedState(loaded: LoadedConfig): void {
  if (loaded.config.state.url === undefined) return;
  throw new DaemonStartError(
    `${loaded.file}: state.url: a dry run needs a state file to copy; it is not available with a PostgreSQL state yet`,
    'dry_run_unavailable',
    'state.url',
  );
}

/** The job's environment; a dry run's works on the scratch copy, which stays the caller's to dispose. */
function openJobEnvironment(
  options: SyncOnceOptions,
  scratch: ScratchState | undefined,
): Promise<Environment> {
  const { loaded } = options;
  // The embedded sandbox (demos) keeps the API's data beside the state file: a dry run reads the same data.
  if (scratch !== undefined && loaded.config.api.sandbox === 'embedded') {
    mkdirSync(dirname(resolve(loaded.config.state.path)), { recursive: true, mode: 0o700 });
  }
  return buildEnvironment({
    loaded,
    registry: options.registry,
    ...(scratch === undefined ? {} : { state: scratch.store }),
  });
}

/** On a shared PostgreSQL state the run holds the leadership lease throughout, or is refused while one leads. */
async function leaseOnSharedState(loaded: LoadedConfig, job: string): Promise<OnceLease | undefined> {
  const election = leadershipSettings(loaded.config);
  const { url } = loaded.config.state;
  if (election === null || url === undefined) return undefined;
  return takeOnceLease({ url, settings: election, purpose: `sync ${job}` });
}

function runOnce(env: Environment, options: SyncOnceOptions, dryRun: boolean): Promise<RunResult> {
  const run = jobRun({ env, dryRun, defaultBudgetMs: 60 * 60_000, budgetMs: options.budgetMs });
  return runOnDemand(options.job, env.clock, (trigger, signal) =>
    run(
      options.job,
      trigger,
      options.signal === undefined ? signal : AbortSignal.any([signal, options.signal]),
      options.requestedBy,
    ),
  );
}

/**
 * One run through the same single-flight the daemon's scheduled and webhook runs take (the scheduler's), so a
 * once-run obeys the same one-run-per-job rule; the state file's lock keeps it apart from a running daemon.
 */
async function runOnDemand(
  job: string,
  clock: Clock,
  run: (trigger: SchedulerTrigger, signal: AbortSignal) => Promise<RunResult>,
): Promise<RunResult> {
  let outcome: { result: RunResult } | { error: unknown } | undefined;
  const scheduler = new Scheduler({
    jobs: [{ name: job }],
    clock,
    run: async (_job, trigger, signal) => {
      try {
        outcome = { result: await run(trigger, signal) };
      } catch (error) {
        outcome = { error };
      }
    },
  });
  await scheduler.runNow(job, 'cli');
  await scheduler.stop(0);
  if (outcome === undefined) throw new Error(`job "${job}" did not run`);
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}
