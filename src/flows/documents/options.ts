/** Options of a `documents` job (jobs.<name>.options in the config). */
import * as z from 'zod';
import { mappingTableName } from '../../config/index.js';

export const DOCUMENTS_FLOW = 'documents';
export const DOCUMENTS_SCOPES = [
  'supplier.documents:read',
  'supplier.documents:write',
  'supplier.buyers:read',
] as const;
/** Buyer reactions nudge a run; the pull of /supplier/documents stays the source of truth. */
export const DOCUMENTS_TRIGGER_EVENTS = [
  'document.received',
  'document.disputed',
  'document.approved_for_export',
] as const;

export const documentsOptionsSchema = z.strictObject({
  mark_sent: z
    .boolean()
    .default(true)
    .describe(
      'Write the API document id back to the ERP once the document is created (DocumentSource.markDocumentSent)',
    ),
  missing_attachment: z
    .enum(['send_without', 'dead_letter'])
    .default('send_without')
    .describe('A document without a PDF: send it without attachments, or file it as a dead letter'),
  file_reuse_window_ms: z
    .number()
    .int()
    .min(0)
    .max(23 * 3_600_000)
    .default(20 * 3_600_000)
    .describe(
      'How long an uploaded, not yet referenced file id is reused after a crash. The API deletes unreferenced files after 24 hours, so this stays well below that',
    ),
  customer_mapping: mappingTableName
    .default('buyers')
    .describe(
      'API buyer id -> ERP customer number, for buyers whose customer_number / erp_ref do not match the ERP',
    ),
  ship_to_mapping: mappingTableName.default('branches').describe('API branch id -> ERP ship-to code'),
  unmapped_ship_to: z
    .enum(['dead_letter', 'omit'])
    .default('dead_letter')
    .describe('A ship-to code without a branch: dead-letter the document, or send it without a branch'),
  reactions: z
    .boolean()
    .default(true)
    .describe('Write buyer reactions (received, differences, disputed, approved for export) back to the ERP'),
  reactions_scope: z
    .enum(['sent', 'all'])
    .default('sent')
    .describe('Reactions for documents this job sent, or for every document of the supplier'),
  page_size: z
    .number()
    .int()
    .min(1)
    .max(200)
    .default(100)
    .describe('Page size for GET /supplier/documents (1..200)'),
  overlap_ms: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(120_000)
    .describe('Look-back window re-read on every pass, covering rows committed late with earlier timestamps'),
});

export type DocumentsOptions = z.output<typeof documentsOptionsSchema>;
export type DocumentsOptionsInput = z.input<typeof documentsOptionsSchema>;
