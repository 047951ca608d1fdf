/** The `documents` flow: ERP delivery notes, invoices and credit notes -> the API; buyer reactions -> the ERP. */
import { requireCapability } from '../../connectors/index.js';
import { defineFlow } from '../../daemon/flow-definition.js';
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
  capabilities: ['documentSource', 'documentReactionSink'],
  triggerEvents: DOCUMENTS_TRIGGER_EVENTS,
  options: documentsOptionsSchema,
  create(job, deps) {
    const connectorName = job.connector;
    if (connectorName === undefined) {
      throw new Error(`jobs.${job.name}.connector is required: the ERP connector the documents come from`);
    }
    return createDocumentsJob({
      name: job.name,
      api: deps.api,
      source: () => requireCapability(deps.connector(connectorName), 'documentSource', connectorName),
      reactionSink: () => deps.connector(connectorName).capabilities.documentReactionSink,
      connectorName,
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
export { buildDocumentBody, exactMoney } from './body.js';
export { documentIdempotencyKey } from './send.js';
export { reactionOf } from './reactions.js';
