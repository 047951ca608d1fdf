/** Options of a `journal-export` job (jobs.<name>.options in the config). */
import * as z from 'zod';

export const JOURNAL_EXPORT_FLOW = 'journal-export';
export const JOURNAL_EXPORT_SCOPES = ['buyer.accounting:read', 'buyer.accounting:write'] as const;
/** Webhook event types that should trigger a journal-export run (map them to the job in the dispatcher). */
export const JOURNAL_EXPORT_EVENT_TYPES = ['journal_lines.approved_for_export'] as const;
/** Nightly at 02:30 in the job's time zone, unless the job sets its own schedule. */
export const JOURNAL_EXPORT_DEFAULT_SCHEDULE = '30 2 * * *';

/** Fields a description template may use. */
export const DESCRIPTION_FIELDS = [
  'description',
  'document_number',
  'document_type',
  'reference',
  'allocation_number',
  'vendor_id',
  'vendor_tax_id',
  'branch_id',
  'branch_code',
  'account',
  'side',
  'source',
  'period',
  'doc_date',
] as const;

export const journalExportOptionsSchema = z.strictObject({
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: 'expected an accounting period YYYY-MM' })
    .optional()
    .meta({ description: 'Only lines of this accounting period (YYYY-MM)', examples: ['2026-03'] }),
  branch_ids: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .meta({ description: 'Only lines of these branches (API branch ids)', examples: [['br_tlv_center']] }),
  max_lines_per_batch: z
    .number()
    .int()
    .min(1)
    .max(50_000)
    .default(5000)
    .describe('Most lines in one batch (one import file / one transaction); a document is never split'),
  target: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({
      description: "The `target` label sent with the export call; defaults to the connector's name",
      examples: ['books'],
    }),
  preview_path: z
    .string()
    .min(1)
    .default('journal-export-preview.json')
    .describe('Where a dry run writes its preview (JSON); relative to the working folder'),
  reversed_document_types: z
    .array(z.string().min(1))
    .default(['credit_note'])
    .describe('Document types whose VAT line is a credit (credit notes reverse the input VAT)'),
  value_date: z
    .enum(['doc_date', 'doc_date_in_period', 'period_start', 'period_end'])
    .default('doc_date_in_period')
    .describe(
      "The value date written to the target. doc_date_in_period: the document date, or the period's first day when the document date lies outside the accounting period",
    ),
  reference_from: z
    .enum(['reference', 'document_number'])
    .default('reference')
    .describe("The API field that becomes the entry's reference"),
  reference2_from: z
    .enum(['allocation_number', 'none'])
    .default('allocation_number')
    .describe('The API field that becomes the second reference'),
  description_template: z
    .string()
    .min(1)
    .default('{description}')
    .describe('Per-line description, e.g. "{document_type} {document_number} {description}"'),
  mappings: z
    .strictObject({
      accounts: z
        .string()
        .min(1)
        .optional()
        .meta({
          description: 'API account -> target account (applies to account and counter account)',
          examples: ['accounts'],
        }),
      branches: z
        .string()
        .min(1)
        .optional()
        .meta({ description: 'API branch_id -> branch code in the target', examples: ['branches'] }),
      movement_types: z
        .string()
        .min(1)
        .optional()
        .meta({
          description:
            'movement_type_code (or document_type when the line has none) -> movement type; "*" is the fallback',
          examples: ['movement_types'],
        }),
    })
    .default({})
    .describe(
      'Names of tables under `mappings:` in the config. A configured table must hold every value it maps',
    ),
});

export type JournalExportOptions = z.output<typeof journalExportOptionsSchema>;
export type JournalExportOptionsInput = z.input<typeof journalExportOptionsSchema>;
