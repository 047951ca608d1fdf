/**
 * A journal-export job with no successful run has written no books yet: the read-back then fails on a folder or
 * table that does not exist, which says nothing about what to do. This names the cause and the step.
 */
import { existsSync } from 'node:fs';
import type { Config } from '../../config/index.js';
import { openStateForReading } from '../state-access.js';

/** Whether the state has no successful run of `job` (no state file: none). Unknown (unreadable) counts as having one. */
function neverExported(config: Config, job: string): boolean {
  if (config.state.url === undefined && !existsSync(config.state.path)) return true;
  try {
    const state = openStateForReading(config.state);
    try {
      return state.runs.last(job, ['ok', 'partial']) === null;
    } finally {
      state.close();
    }
  } catch {
    return false;
  }
}

/** The books could not be read: when the job never exported, the error says so and what to do. */
export function notExportedYet(error: unknown, config: Config, job: string): unknown {
  if (!(error instanceof Error) || !neverExported(config, job)) return error;
  const where = config.state.url === undefined ? config.state.path : 'the state database';
  return new Error(
    `${error.message}: job ${job} has not exported yet (no successful run in ${where}), so there are no books to ` +
      `compare; run it (\`supply-sync sync ${job}\`, or let the daemon run it) and reconcile then`,
  );
}
