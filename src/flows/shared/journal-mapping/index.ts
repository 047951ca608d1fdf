/**
 * How a journal-export job turns the API's journal lines into entries of the books: its options, its mapping and the
 * line it reads. The export writes by it, and reconciliation expects the books to hold what it gives.
 */
export {
  journalExportOptionsSchema,
  JOURNAL_EXPORT_FLOW,
  JOURNAL_EXPORT_SCOPES,
  JOURNAL_EXPORT_EVENT_TYPES,
  JOURNAL_EXPORT_DEFAULT_SCHEDULE,
  DESCRIPTION_FIELDS,
  type JournalExportOptions,
  type JournalExportOptionsInput,
} from './options.js';
export { GroupMapper, groupByDocument, type MappingTables } from './mapping.js';
export type { StagedLine } from './line.js';
