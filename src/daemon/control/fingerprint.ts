/**
 * The fingerprint of a config as far as commands are concerned: its jobs (name, flow, connector) and connectors
 * (name, type). A command given with another config (another site's file, an old copy) names jobs and streams the
 * daemon may not have, so the daemon refuses it. Secrets and tuning keys are left out: they do not change what a
 * command means, and a secret must not be derivable from the queue.
 */
import { createHash } from 'node:crypto';
import type { CoreConfig } from '../../config/index.js';

export function configFingerprint(config: Pick<CoreConfig, 'jobs' | 'connectors'>): string {
  const jobs = Object.entries(config.jobs)
    .map(([name, job]) => [name, job.flow, job.connector ?? null])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const connectors = Object.entries(config.connectors)
    .map(([name, block]) => [name, block.type])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  return createHash('sha256').update(JSON.stringify({ jobs, connectors })).digest('hex').slice(0, 16);
}
