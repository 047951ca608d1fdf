/** `supply-sync sync <job>`: one run of one job, outside the daemon (the state lock keeps the two apart). */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { LoadedConfig } from '../config/index.js';
import { runJob, type RunResult } from '../engine/index.js';
import { systemClock } from '../shared/clock.js';
import type { Registries } from './builtin.js';
import { openScratchState, type ScratchState } from './dry-run-state.js';
import { buildEnvironment } from './environment.js';
import { errorThresholdFor } from './error-threshold.js';

export class UnknownJobError extends Error {
  readonly code = 'unknown_job';
}

export interface SyncOnceOptions {
  loaded: LoadedConfig;
  registries: Registries;
  job: string;
  dryRun?: boolean;
  signal?: AbortSignal;
  budgetMs?: number;
}

export async function runJobOnce(options: SyncOnceOptions): Promise<RunResult> {
  const { jobs } = options.loaded.config;
  const jobConfig = jobs[options.job];
  if (jobConfig === undefined) {
    const known = Object.keys(jobs).join(', ') || 'none';
    throw new UnknownJobError(`no job "${options.job}" in ${options.loaded.file} (jobs: ${known})`);
  }
  const dryRun = options.dryRun ?? false;
  // A dry run never touches the state file: no file created, no run recorded, no cursor or ledger moved.
  const scratch: ScratchState | undefined = dryRun
    ? await openScratchState(options.loaded.config.state.path, systemClock)
    : undefined;
  let env;
  try {
    // The embedded sandbox (demos) keeps the API's data beside the state file: a dry run reads the same data.
    if (dryRun && options.loaded.config.api.sandbox === 'embedded') {
      mkdirSync(dirname(resolve(options.loaded.config.state.path)), { recursive: true, mode: 0o700 });
    }
    env = await buildEnvironment({
      loaded: options.loaded,
      registries: options.registries,
      ...(scratch === undefined ? {} : { state: scratch.store }),
    });
  } catch (error) {
    await scratch?.dispose();
    throw error;
  }
  try {
    const built = env.jobs.get(options.job);
    if (built === undefined) {
      throw new UnknownJobError(`job "${options.job}" is disabled in ${options.loaded.file}`);
    }
    return await runJob(built.job, {
      signal: options.signal ?? new AbortController().signal,
      budgetMs: options.budgetMs ?? built.config.budget ?? 60 * 60_000,
      dryRun,
      logger: env.logger,
      clock: env.clock,
      state: env.state,
      trigger: 'cli',
      errorThreshold: errorThresholdFor(options.loaded.config, built.config),
    });
  } finally {
    await env.close();
    await scratch?.dispose();
  }
}
