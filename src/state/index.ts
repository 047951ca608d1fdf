export { StateStore } from './state-store.js';
export { openConfiguredState, type StateLocation } from './open.js';
export { PgStateStore, openPgStateStore, type OpenPgStateOptions } from './postgres/store.js';
export { StateDatabaseError } from './postgres/errors.js';
export { StateFileError } from './file-errors.js';
export { StateSchemaOutdatedError, StateSchemaTooNewError } from './schema-errors.js';
export { SqliteStateStore, openStateStore, type OpenStateOptions, type SyncMode } from './store.js';
export {
  LeadershipLostError,
  type Fence,
  type LeadershipLostCode,
  type LeaseGrant,
  type SqlRunResult,
  type SyncRowReader,
  type SyncSqlPort,
  type SyncStatement,
} from './sql-port.js';
export type { StateBackend, StateDialect } from './dialect.js';
export { DEFAULT_STATE_FILE, prepareStateFile } from './file.js';
export { isStateFileBusy, StateLockedError, stateLockedMessage, type LockHolder } from './lock.js';
export { MIGRATIONS, LATEST_SCHEMA_VERSION, runMigrations, currentSchemaVersion, type Migration } from './migrations.js';
export type { CursorState } from './cursors.js';
export { INBOX_RETENTION_MS, type InboxEvent, type InboxEventInput, type InboxEventRef } from './inbox.js';
export { OutboxConflictError, type OutboxEntry, type OutboxInput, type OutboxStatus } from './outbox.js';
export type { LedgerEntry, LedgerKey } from './ledger.js';
export type { DeadLetter, DeadLetterFilter, DeadLetterStatus } from './dead-letters.js';
export type { RunFilter, RunOutcome, RunRecord, RunTrigger } from './runs.js';
export type { CommandStatus, NewCommand, QueuedCommand } from './commands.js';
export type { PausedJob } from './paused-jobs.js';
export {
  NotificationQueue,
  type ChannelQueueSummary,
  type NotificationStatus,
  type NotificationToQueue,
  type QueuedNotification,
} from './notifications.js';
export { NotificationSources, type FinishedRun, type NewDeadLetters } from './notification-sources.js';
export { noteWrittenBatch, writtenBatchesBetween, type WrittenBatch } from './written-batches.js';
