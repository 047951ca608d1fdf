/** Options of a `documents` job (jobs.<name>.options in the config). */
import { z } from 'zod';

const tableName = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'a mapping table name: lowercase letters, digits and underscores');

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
  /** Write the API document id back to the ERP once the document is created (DocumentSource.markDocumentSent). */
  mark_sent: z.boolean().default(true),
  /** A document without a PDF: send it without attachments, or file it as a dead letter. */
  missing_attachment: z.enum(['send_without', 'dead_letter']).default('send_without'),
  /**
   * How long an uploaded, not yet referenced file id is reused after a crash. The API deletes unreferenced files
   * after 24 hours, so this stays well below that.
   */
  file_reuse_window_ms: z
    .number()
    .int()
    .min(0)
    .max(23 * 3_600_000)
    .default(20 * 3_600_000),
  /** API buyer id -> ERP customer number, for buyers whose customer_number / erp_ref do not match the ERP. */
  customer_mapping: tableName.default('buyers'),
  /** API branch id -> ERP ship-to code. */
  ship_to_mapping: tableName.default('branches'),
  /** A ship-to code without a branch: dead-letter the document, or send it without a branch. */
  unmapped_ship_to: z.enum(['dead_letter', 'omit']).default('dead_letter'),
  /** Write buyer reactions (received, differences, disputed, approved for export) back to the ERP. */
  reactions: z.boolean().default(true),
  /** Reactions for documents this job sent, or for every document of the supplier. */
  reactions_scope: z.enum(['sent', 'all']).default('sent'),
  /** Page size for GET /supplier/documents (1..200). */
  page_size: z.number().int().min(1).max(200).default(100),
  /** Look-back window re-read on every pass, covering rows committed late with earlier timestamps. */
  overlap_ms: z.number().int().min(0).max(86_400_000).default(120_000),
});

export type DocumentsOptions = z.output<typeof documentsOptionsSchema>;
export type DocumentsOptionsInput = z.input<typeof documentsOptionsSchema>;
