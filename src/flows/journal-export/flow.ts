/** The journal-export flow as the daemon registers it. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
import { createJournalExportJob } from './job.js';
import {
  JOURNAL_EXPORT_EVENT_TYPES,
  JOURNAL_EXPORT_FLOW,
  JOURNAL_EXPORT_SCOPES,
  journalExportOptionsSchema,
} from '../shared/journal-mapping/options.js';

export const journalExportFlow = defineFlow({
  flow: JOURNAL_EXPORT_FLOW,
  description:
    'approved journal lines into the accounting system (SQL table, Hashavshevet import files, CSV), then marked exported',
  side: 'buyer',
  scopes: JOURNAL_EXPORT_SCOPES,
  requires: ['accountingWriter'],
  triggerEvents: JOURNAL_EXPORT_EVENT_TYPES,
  options: journalExportOptionsSchema,
  create(job, deps) {
    const books = jobConnector(JOURNAL_EXPORT_FLOW, job, deps);
    return createJournalExportJob({
      name: job.name,
      api: deps.api,
      writer: books.require('accountingWriter'),
      options: job.options,
      mappings: deps.mappings,
      connectorName: books.name,
    });
  },
});
