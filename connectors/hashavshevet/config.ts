/** Config block of a `hashavshevet` connector (without its `type` key). */
import { z } from 'zod';
import { DATE_FORMATS, type DateFormat } from './layout.js';
import { LONG_REFERENCE_RULES, type LongReferenceRule } from './references.js';

const SAFE_NAME = /^[A-Za-z0-9._-]*$/;

export const hashavshevetConfigSchema = z.strictObject({
  /** Folder the accountant imports from; relative paths resolve against the config file's folder. */
  import_dir: z.string().min(1),
  /** Subfolder of import_dir where imported files are moved; files there still count as written. */
  done_dir: z.string().min(1).default('done'),
  /** Data and layout files are named <file_prefix><batch key>.DOC and .PRM. */
  file_prefix: z
    .string()
    .regex(SAFE_NAME, { error: 'use letters, digits, dot, dash or underscore' })
    .default('MOVEIN-'),
  date_format: z.enum(DATE_FORMATS as [DateFormat, ...DateFormat[]]).default('DDMMYYYY'),
  /** What to do with a document number that is not a number of at most nine digits. */
  long_references: z
    .enum(LONG_REFERENCE_RULES as [LongReferenceRule, ...LongReferenceRule[]])
    .default('refuse'),
  /** First number of the `sequence` rule. */
  sequence_start: z.number().int().min(1).max(999_999_999).default(1),
  /** Replacements for characters outside the windows-1255 / ISO-8859-8 shared set, e.g. { "₪": "ש\"ח" }. */
  char_map: z.record(z.string().length(1), z.string()).default({}),
  details_overflow: z.enum(['truncate', 'refuse']).default('truncate'),
});

export type HashavshevetConfig = z.output<typeof hashavshevetConfigSchema>;
