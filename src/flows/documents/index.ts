/** The `documents` flow: ERP delivery notes, invoices and credit notes -> the API; buyer reactions -> the ERP. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
import { createDocumentsJob } from './job.js';
import {
  DOCUMENTS_FLOW,
  DOCUMENTS_SCOPES,
  DOCUMENTS_TRIGGER_EVENTS,
  documentsOptionsSchema,
} from './options.js';

export const documentsFlow = defineFlow({
  flow: DOCUMENTS_FLOW,
  description: 'ERP documents (with PDFs) -> the API once each; buyer reactions -> the ERP',
  side: 'supplier',
  scopes: DOCUMENTS_SCOPES,
  requires: ['documentSource'],
  optional: ['documentReactionSink'],
  triggerEvents: DOCUMENTS_TRIGGER_EVENTS,
  options: documentsOptionsSchema,
  create(job, deps) {
    const erp = jobConnector(DOCUMENTS_FLOW, job, deps);
    return createDocumentsJob({
      name: job.name,
      api: deps.api,
      source: () => erp.require('documentSource'),
      reactionSink: () => erp.offered('documentReactionSink'),
      connectorName: erp.name,
      options: job.options,
      mappings: deps.mappings,
    });
  },
});

export { createDocumentsJob, type DocumentsJobInput } from './job.js';
export {
  documentsOptionsSchema,
  DOCUMENTS_FLOW,
  DOCUMENTS_SCOPES,
  DOCUMENTS_TRIGGER_EVENTS,
} from './options.js';
export type { DocumentsOptions, DocumentsOptionsInput } from './options.js';
export type { DocumentsApi } from './api.js';
export { buildDocumentBody } from './body.js';
export { documentIdempotencyKey } from './send.js';
export { reactionOf } from './reactions.js';
