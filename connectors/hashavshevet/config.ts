/** Config block of a `hashavshevet` connector (without its `type` key). */
import * as z from 'zod';
import { COSTING_CODE_WIDTH, DATE_FORMATS, type DateFormat } from './layout.js';
import { LONG_REFERENCE_RULES, type LongReferenceRule } from './references.js';
import { TEXT_DIRECTIONS, type TextDirection } from './text-direction.js';

export type CostingCodeSource = 'none' | 'branch' | 'purchase_type';
export const COSTING_CODE_SOURCES: readonly CostingCodeSource[] = ['none', 'branch', 'purchase_type'];

const SAFE_NAME = /^[A-Za-z0-9._-]*$/;

export const hashavshevetConfigSchema = z
  .strictObject({
    import_dir: z
      .string()
      .min(1)
      .meta({
        description:
          "Folder the accountant imports from; relative paths resolve against the config file's folder",
        examples: ['/srv/books/import'],
      }),
    done_dir: z
      .string()
      .min(1)
      .meta({
        description:
          'Subfolder of import_dir where imported files are moved; files there still count as written',
        examples: ['done'],
      })
      .default('done'),
    file_prefix: z
      .string()
      .regex(SAFE_NAME, { error: 'use letters, digits, dot, dash or underscore' })
      .meta({
        description: 'Data and layout files are named <file_prefix><batch key>.DOC and .PRM',
        examples: ['MOVEIN-'],
      })
      .default('MOVEIN-'),
    date_format: z
      .enum(DATE_FORMATS as [DateFormat, ...DateFormat[]])
      .meta({ description: 'How dates are written in the data file, as the import layout declares them' })
      .default('DDMMYYYY'),
    long_references: z
      .enum(LONG_REFERENCE_RULES as [LongReferenceRule, ...LongReferenceRule[]])
      .meta({ description: 'What to do with a document number that is not a number of at most nine digits' })
      .default('refuse'),
    sequence_start: z
      .number()
      .int()
      .min(1)
      .max(999_999_999)
      .meta({ description: 'First number of the `sequence` rule', examples: [1] })
      .default(1),
    char_map: z
      .record(z.string().length(1), z.string())
      .meta({
        description: 'Replacements for characters outside the windows-1255 / ISO-8859-8 shared set',
        examples: [{ '₪': 'ש"ח' }],
      })
      .default({}),
    details_overflow: z
      .enum(['truncate', 'refuse'])
      .meta({
        description:
          'Details longer than the 50 characters of PRM line 9: refuse makes the document a dead letter naming ' +
          'the field; truncate cuts them, only when asked for here',
      })
      .default('refuse'),
    costing_code: z
      .enum(COSTING_CODE_SOURCES as [CostingCodeSource, ...CostingCodeSource[]])
      .meta({
        description:
          "PRM line 7 (costing code, at most 8 characters): none, the line's branch, or its purchase type",
      })
      .default('none'),
    costing_code_map: z
      .record(
        z.string(),
        z.string().max(COSTING_CODE_WIDTH, {
          error: `a costing code holds at most ${COSTING_CODE_WIDTH} characters (PRM line 7)`,
        }),
      )
      .meta({
        description:
          "Translates the branch (its code from the job's mappings.branches, else the API's branch id) or the " +
          'purchase type into a costing code; a value missing from it is a dead letter',
        examples: [{ FC: '100', MK: '200' }],
      })
      .optional(),
    vat_number: z
      .enum(['none', 'vendor_tax_id'])
      .meta({
        description:
          "PRM line 29 (the counterparty's VAT registration number, 9 digits): none, or the line's vendor_tax_id",
      })
      .default('none'),
    text_direction: z
      .enum(TEXT_DIRECTIONS as [TextDirection, ...TextDirection[]])
      .meta({
        description:
          'Order of Hebrew text in the file: logical (reading order, the default) or visual (as displayed left to ' +
          'right), for installations that expect it',
      })
      .default('logical'),
  })
  .superRefine((config, context) => {
    if (config.costing_code_map !== undefined && config.costing_code === 'none') {
      context.addIssue({
        code: 'custom',
        path: ['costing_code_map'],
        message:
          'costing_code_map is set but costing_code is none; set costing_code to branch or purchase_type',
      });
    }
  });

export type HashavshevetConfig = z.output<typeof hashavshevetConfigSchema>;
