/** The journal-export flow as the daemon registers it. */
import { defineFlow } from '../../daemon/flow-definition.js';
import { journalExportJobFromConfig } from './from-config.js';
import {
  JOURNAL_EXPORT_EVENT_TYPES,
  JOURNAL_EXPORT_FLOW,
  JOURNAL_EXPORT_SCOPES,
  journalExportOptionsSchema,
} from './options.js';

export const journalExportFlow = defineFlow({
  flow: JOURNAL_EXPORT_FLOW,
  description:
    'approved journal lines into the accounting system (SQL table, Hashavshevet import files, CSV), then marked exported',
  side: 'buyer',
  scopes: JOURNAL_EXPORT_SCOPES,
  capabilities: ['accountingWriter'],
  triggerEvents: JOURNAL_EXPORT_EVENT_TYPES,
  options: journalExportOptionsSchema,
  create: (job, deps) =>
    journalExportJobFromConfig({
      name: job.name,
      job: { connector: job.connector, options: job.options },
      mappings: deps.mappings,
      api: deps.api,
      connector: deps.connector,
    }),
});
