/**
 * The fingerprint of a config as far as commands are concerned: its jobs (name, flow, connector) and connectors
 * (name, type). A command given with another config (another site's file, an old copy) names jobs and streams the
 * daemon may not have, so the daemon refuses it. Secrets and tuning keys are left out: they do not change what a
 * command means, and a secret must not be derivable from the queue.
 *
 * The CLI adds the fingerprint of its file's `mappings:` (commandFingerprint): a dead-letter retry or a run now given
 * after an edit of the mappings must not run with the daemon's older ones, so the daemon refuses it until
 * `supply-sync config reload` has made them the same. The control API speaks for the daemon itself and adds none.
 */
import { createHash } from 'node:crypto';
import type { CoreConfig } from '../../config/index.js';
import type { Mappings } from '../../plugin/index.js';
import { mappingsFingerprint } from '../jobs/mappings.js';

export function configFingerprint(config: Pick<CoreConfig, 'jobs' | 'connectors'>): string {
  const jobs = Object.entries(config.jobs)
    .map(([name, job]) => [name, job.flow, job.connector ?? null])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const connectors = Object.entries(config.connectors)
    .map(([name, block]) => [name, block.type])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  return createHash('sha256').update(JSON.stringify({ jobs, connectors })).digest('hex').slice(0, 16);
}

/** Between the structure's fingerprint and the mappings' in a command's fingerprint. */
const MAPPINGS_MARK = '+mappings:';

/** The fingerprint the CLI gives its commands: the structure's, and the mappings' of its config file. */
export function commandFingerprint(config: Pick<CoreConfig, 'jobs' | 'connectors' | 'mappings'>): string {
  return `${configFingerprint(config)}${MAPPINGS_MARK}${mappingsFingerprint(config.mappings as Mappings)}`;
}

/** A command's fingerprint in its parts; `mappings` is undefined when the command was given without one. */
export function fingerprintParts(fingerprint: string): { structure: string; mappings?: string } {
  const at = fingerprint.indexOf(MAPPINGS_MARK);
  if (at < 0) return { structure: fingerprint };
  return { structure: fingerprint.slice(0, at), mappings: fingerprint.slice(at + MAPPINGS_MARK.length) };
}
