/** Options of a `mirror` job (jobs.<name>.options in the config). */
import * as z from 'zod';
import { duration } from '../../config/index.js';
import { MIRROR_RESOURCES } from './resources.js';

export const MIRROR_FLOW = 'mirror';

/** Scopes of the lists the mirror reads (reference scopes per docs/contract-gaps.md G16) and of bulk exports. */
export const MIRROR_SCOPES = [
  'buyer.purchases:read',
  'buyer.expenses:read',
  'buyer.accounting:read',
  'buyer.sales:read',
] as const;

/** Columns every mirror table has; configured columns may not reuse these names. */
export const BASE_COLUMNS = ['id', 'updated_at', 'deleted_at', 'record', 'synced_at'] as const;

const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FIELD_PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

const columnType = z.enum(['text', 'decimal', 'integer', 'boolean', 'date', 'timestamp', 'json']);

/** `number` (a dotted path into the record, text column) or `{ path: totals.with_vat, type: decimal }`. */
const columnSource = z.union([
  z.string().regex(FIELD_PATH, { error: 'expected a field path such as totals.with_vat' }),
  z.strictObject({
    path: z
      .string()
      .regex(FIELD_PATH, { error: 'expected a field path such as totals.with_vat' })
      .meta({ description: 'Dotted path of the field in the record', examples: ['totals.with_vat'] }),
    type: columnType.default('text').describe('SQL type of the column'),
  }),
]);

const tableColumns = z
  .record(z.string().regex(COLUMN_NAME, { error: 'expected a plain column name' }), columnSource)
  .refine(
    (columns) => !Object.keys(columns).some((name) => (BASE_COLUMNS as readonly string[]).includes(name)),
    {
      error: `column names ${BASE_COLUMNS.join(', ')} are reserved`,
    },
  );

export const mirrorOptionsSchema = z.strictObject({
  resources: z
    .array(z.enum(MIRROR_RESOURCES))
    .min(1)
    .default([...MIRROR_RESOURCES])
    .describe('Which resources to mirror; all of them by default'),
  columns: z
    .partialRecord(z.enum(MIRROR_RESOURCES), tableColumns)
    .default({})
    .describe('Flattened columns per resource, besides the full record as JSON'),
  overlap: duration()
    .default(300_000)
    .meta({
      description: 'Look-back for rows committed late with an equal or earlier updated_at',
      examples: ['5m'],
    }),
  window_days: z
    .number()
    .int()
    .min(0)
    .max(366)
    .default(7)
    .describe(
      'Days re-read before the watermark for lists that have no updated_since (Z-reports, item sales, counts)',
    ),
  page_size: z
    .number()
    .int()
    .min(1)
    .max(200)
    .default(200)
    .describe('Page size of the list requests (1..200)'),
  backfill: z
    .enum(['auto', 'never'])
    .default('auto')
    .describe(
      'First run: backfill through POST /exports when GET /me lists bulk_export (auto), or always page (never)',
    ),
  export_timeout: duration()
    .default(1_800_000)
    .meta({
      description:
        'Longest wait for an export job before the run gives up (the next run resumes polling the same job)',
      examples: ['30m'],
    }),
  export_chunk_rows: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(500)
    .describe('Rows per upsert transaction while loading export files'),
});

export type MirrorOptions = z.output<typeof mirrorOptionsSchema>;
export type MirrorOptionsInput = z.input<typeof mirrorOptionsSchema>;
