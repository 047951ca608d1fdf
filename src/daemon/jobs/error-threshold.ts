import type { Config, JobConfig } from '../../config/index.js';
import type { ErrorThreshold } from '../../engine/index.js';

/** The share of a run's records that may go to dead letters: the job's own setting, else the global one. */
export function errorThresholdFor(config: Config, job: JobConfig): ErrorThreshold {
  return { maxFailureShare: job.dead_letter_share ?? config.health.dead_letter_share };
}
