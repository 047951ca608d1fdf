export { createJournalExportJob, type JournalExportJobInput } from './job.js';
export {
  journalExportOptionsSchema,
  JOURNAL_EXPORT_FLOW,
  JOURNAL_EXPORT_SCOPES,
  JOURNAL_EXPORT_EVENT_TYPES,
  JOURNAL_EXPORT_DEFAULT_SCHEDULE,
  DESCRIPTION_FIELDS,
  type JournalExportOptions,
  type JournalExportOptionsInput,
} from '../shared/journal-mapping/options.js';
export type { JournalExportApi } from './api.js';
export { GroupMapper, groupByDocument, type MappingTables } from '../shared/journal-mapping/mapping.js';
export { batchKeyFor, exportKeyFor, type BatchPlan } from './plans.js';
export { LEDGER_FLOW } from './commit.js';
export type { EntryPrecheck } from './select.js';
export type { DeadLetterKind, DeadLetterRecord } from './dead-letters.js';
export { journalExportFlow } from './flow.js';
