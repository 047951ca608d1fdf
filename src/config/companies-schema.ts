/** The `companies:` block of an office config: where the company files are. */
import * as z from 'zod';

/** A company's name is its file's name without .yaml: it names its jobs (`<company>/<job>`), folders and metrics. */
export const COMPANY_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The top-level keys a company file may set; everything else is set once for the whole office. */
const TIME_HINT = 'expected a time of day like "07:00"';

export const COMPANY_KEYS = ['api', 'state', 'connectors', 'jobs', 'mappings', 'notifications'] as const;

export const companiesSchema = z
  .strictObject({
    dir: z
      .string()
      .min(1)
      .meta({
        description:
          "Folder of company files, one <company>.yaml each (relative to this file's folder); adding a company is adding a file",
        examples: ['companies.d'],
      })
      .default('companies.d'),
    max_concurrent_runs: z
      .number()
      .int()
      .min(1)
      .max(256)
      .meta({
        description:
          "Runs going at once over every company in one office daemon: a company's slow or failing runs hold at most the slots they use",
      })
      .default(4),
    report: z
      .strictObject({
        at: z
          .string({ error: TIME_HINT })
          .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: TIME_HINT })
          .meta({ description: 'When the report is sent, in the top-level timezone', examples: ['07:00'] }),
        channels: z
          .array(z.string().min(1))
          .min(1, { error: 'expected at least one channel name' })
          .meta({
            description: "Channels of this file's notifications block the report goes to (not a company's)",
            examples: [['office']],
          }),
      })
      .meta({
        description:
          "The office's morning report: one table of every company's last 24 hours (lines exported and their ILS, held back, failed runs, not yet run)",
      })
      .optional(),
  })
  .meta({
    description:
      'Makes this file an office: its settings are shared by every company, and each file in dir adds one company ' +
      `(${COMPANY_KEYS.join(', ')}), merged over them`,
  });

export type CompaniesConfig = z.output<typeof companiesSchema>;
