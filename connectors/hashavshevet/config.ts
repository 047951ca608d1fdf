/** Config block of a `hashavshevet` connector (without its `type` key). */
import { z } from 'zod';
import { DATE_FORMATS, type DateFormat } from './layout.js';
import { LONG_REFERENCE_RULES, type LongReferenceRule } from './references.js';

const SAFE_NAME = /^[A-Za-z0-9._-]*$/;

export const hashavshevetConfigSchema = z.strictObject({
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
    })
    .default('done'),
  file_prefix: z
    .string()
    .regex(SAFE_NAME, { error: 'use letters, digits, dot, dash or underscore' })
    .meta({ description: 'Data and layout files are named <file_prefix><batch key>.DOC and .PRM' })
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
    .meta({ description: 'First number of the `sequence` rule' })
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
        "What to do with details longer than their field: cut them to the field's width, or refuse the line",
    })
    .default('truncate'),
});

export type HashavshevetConfig = z.output<typeof hashavshevetConfigSchema>;
