export type { ErrorThreshold, Job, JobContext, RunResult, RunOutcome, RunTally, RunTrigger } from './job.js';
export { runJob } from './run-job.js';
export {
  RunBudget,
  FailureTracker,
  decideOutcome,
  heldBackBreach,
  judgeRun,
  errorMessage,
  DEFAULT_ERROR_THRESHOLD,
  type StopReason,
} from './outcome.js';
export { pullIncremental, passStart } from './pull.js';
export type {
  Page,
  PageRequest,
  PullCounts,
  PullOptions,
  PullResult,
  RecordFailure,
  RecordIdentity,
} from './pull-types.js';
export {
  drainOutbox,
  enqueueWrite,
  enqueueBatches,
  type BatchWrite,
  jsonBody,
  defaultIsRetryable,
  defaultRetryDelayMs,
  type DrainOptions,
  type DrainResult,
  type OutboxRequest,
  type OutboxSender,
} from './outbox.js';
export { idempotencyKey, contentHash, canonicalJson, MAX_IDEMPOTENCY_KEY_LENGTH } from './keys.js';
export { BATCH_LIMITS, toBatches, type Batch, type BatchKind } from './batching.js';
export {
  jobFreshness,
  stateOverview,
  outboxDepth,
  openDeadLetterCount,
  type JobFreshness,
  type StateOverview,
} from './freshness.js';
export { pruneState, DEFAULT_RETENTION, type RetentionPolicy, type PruneCounts } from './housekeeping.js';
