/** The core config schema. Connector blocks and job options are checked afterwards against the registry. */
import * as z from 'zod';
import { controlApiSchema } from './control-schema.js';
import { opsAuthSchema, trustedProxiesSchema } from './auth-schema.js';
import { parseCron } from '../scheduler/cron.js';
import { isValidTimeZone } from '../scheduler/zoned-time.js';
import { haConfigSchema } from './ha-schema.js';
import { duration } from './duration.js';
import { caFileSchema, proxySchema, serverTlsSchema, webhookListenerSchema } from './network-schema.js';
import { markSecret, secret } from './secret.js';
import { notificationsSchema } from './notifications-schema.js';
import { closestMatch } from './did-you-mean.js';
import { companiesSchema } from './companies-schema.js';
import { LIVE_KEY_PREFIX, SANDBOX_KEY_PREFIX } from '../shared/api-key-prefix.js';

const KEY_PREFIXES = [SANDBOX_KEY_PREFIX, LIVE_KEY_PREFIX] as const;

export const DEFAULT_TIMEZONE = 'Asia/Jerusalem';
export const DEFAULT_STATE_PATH = 'state/supply-sync.db';
const CRON_HINT = 'expected a cron expression like "*/5 * * * *"';

export const cronExpression = () =>
  z.string({ error: CRON_HINT }).refine(
    (value) => {
      try {
        parseCron(value);
        return true;
      } catch {
        return false;
      }
    },
    { error: CRON_HINT },
  );

export const timeZone = () =>
  z
    .string({ error: 'expected an IANA time zone like "Asia/Jerusalem"' })
    .refine(isValidTimeZone, { error: 'expected an IANA time zone like "Asia/Jerusalem"' });

const name = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*$/, { error: 'expected a lowercase name (letters, digits, - and _)' });

const apiSchema = z
  .strictObject({
    base_url: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL ending in /v2' })
      .refine((url) => /\/v2\/?$/.test(url), { error: 'expected an http(s) URL ending in /v2' })
      .transform((url) => url.replace(/\/$/, ''))
      .meta({
        description: 'Base URL of the Purchasing and Supply API, ending in /v2 (or use sandbox: embedded)',
        examples: ['https://api.example.com/v2'],
      })
      .optional(),
    sandbox: z
      .literal('embedded', { error: 'expected "embedded" (start the built-in sandbox)' })
      .meta({ description: 'Start the built-in sandbox and use its demo keys instead of a real API' })
      .optional(),
    api_key: secret('an API key (svc_test_... or svc_live_...)')
      .meta({
        description: 'API key of the supplier or buyer account; required with base_url',
        examples: ['${SUPPLY_API_KEY}'],
      })
      .optional(),
    auth: z
      .enum(['api_key', 'oauth'])
      .meta({
        description: 'How requests authenticate: the API key itself, or OAuth tokens obtained with it',
      })
      .default('api_key'),
    client_id: z
      .string()
      .min(1)
      .meta({ description: 'OAuth client id; required when auth is oauth', examples: ['cli_0123456789'] })
      .optional(),
    timeout: duration()
      .meta({
        description: 'Time allowed for one request, including the waits between its retries',
        examples: ['30s'],
      })
      .default(30_000),
    max_concurrency: z
      .number()
      .int()
      .min(1)
      .max(64)
      .meta({ description: 'Requests in flight at once' })
      .default(4),
    proxy: proxySchema.optional(),
    ca_file: caFileSchema.optional(),
  })
  .superRefine((api, ctx) => {
    if ((api.base_url === undefined) === (api.sandbox === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['base_url'],
        message: 'expected either base_url or sandbox: embedded',
      });
    }
    if (api.base_url !== undefined && api.api_key === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['api_key'],
        message: 'is required with base_url (or use api_key_file)',
      });
    }
    if (
      api.api_key !== undefined &&
      !KEY_PREFIXES.some((prefix) => api.api_key?.startsWith(prefix) === true)
    ) {
      // Checked here, not first at the API client's start, so that the error names the file and the key.
      ctx.addIssue({
        code: 'custom',
        path: ['api_key'],
        message:
          `expected an API key that starts with ${SANDBOX_KEY_PREFIX} (sandbox) or ${LIVE_KEY_PREFIX} (live); ` +
          'the value given does not (it is not shown): copy the whole key from the API account',
      });
    }
    if (api.auth === 'oauth' && api.client_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['client_id'], message: 'is required when auth is oauth' });
    }
  });

/** Relative to the config file's folder. */
const stateSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .meta({ description: 'SQLite file of checkpoints, cursors, run history and dead letters; back it up' })
    .default(DEFAULT_STATE_PATH),
  url: markSecret(
    z.string().regex(/^postgres(ql)?:\/\/[^/]/, {
      error: 'expected a PostgreSQL URL, postgres://user:password@host:port/database',
    }),
  )
    .meta({
      description:
        'PostgreSQL database holding the state instead of the SQLite file at path (for two instances sharing one state); ' +
        'give the password as ${ENV} or url_file, never in the file itself',
      // The whole URL may also come from one variable (url: ${STATE_URL}); an example must match the pattern.
      examples: ['postgres://supply_sync:${STATE_DB_PASSWORD}@db.internal:5432/supply_sync'],
    })
    .optional(),
  history: z
    .strictObject({
      keep: duration()
        .meta({
          description: 'How long finished runs stay in the run history (`supply-sync runs`, the status page)',
          examples: ['30d'],
        })
        .default(30 * 86_400_000),
      max_runs: z
        .number()
        .int()
        .positive()
        .meta({ description: 'The most runs the history keeps, all jobs together; the oldest go first' })
        .default(10_000),
    })
    .meta({
      description: 'Run history retention: runs older than `keep`, or beyond `max_runs`, are pruned hourly',
    })
    .prefault({}),
});

const serverSchema = z.strictObject({
  host: z
    .string()
    .min(1)
    .meta({
      description: 'Address the operations server listens on (health, metrics, status page, webhooks)',
    })
    .default('127.0.0.1'),
  port: z
    .number()
    .int()
    .min(0)
    .max(65_535)
    .meta({ description: 'Port of the operations server; 0 picks a free one' })
    .default(8080),
  webhook_path: z
    .string()
    .regex(/^\//, { error: 'expected a path starting with "/"' })
    .meta({ description: 'Path the API delivers webhooks to' })
    .default('/webhooks'),
  webhook_secrets: z
    .array(secret('a webhook signing secret'))
    .meta({
      description:
        'Extra webhook signing secrets, besides those kept in the state file by `supply-sync webhooks register`',
      examples: [['${WEBHOOK_SECRET}']],
    })
    .default([]),
  max_body_bytes: z
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .meta({ description: 'Largest webhook body accepted, in bytes; larger ones get 413' })
    .default(1024 * 1024),
  tls: serverTlsSchema.optional(),
  auth: opsAuthSchema.optional(),
  trusted_proxies: trustedProxiesSchema,
  webhooks: webhookListenerSchema.optional(),
  control: controlApiSchema.optional(),
});

const logSchema = z.strictObject({
  level: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .meta({ description: 'Least severe level written' })
    .default('info'),
  pretty: z
    .union([z.boolean(), z.literal('auto')], { error: 'expected true, false or "auto"' })
    .meta({
      description:
        'Human-readable lines instead of JSON lines; "auto" (the default) on a terminal only, JSON into pipes and files',
      examples: ['auto'],
    })
    .default('auto'),
});

/** The share of a run's records that may go to dead letters before the run counts as failed. */
const deadLetterShare = () =>
  z
    .number({ error: 'expected a share between 0 and 1, e.g. 0.2 for 20%' })
    .min(0, { error: 'expected a share between 0 and 1, e.g. 0.2 for 20%' })
    .max(1, { error: 'expected a share between 0 and 1, e.g. 0.2 for 20%' });

const healthSchema = z.strictObject({
  connector_check_interval: duration()
    .meta({ description: "How often each connector's check runs in the daemon", examples: ['30s'] })
    .default(30_000),
  dead_letter_share: deadLetterShare()
    .meta({
      description: "Share of a run's records that may go to dead letters before the run counts as failed",
      examples: [0.2],
    })
    .default(0.2),
});

const connectorSchema = z
  .looseObject({
    type: z
      .string({ error: 'expected the connector type, e.g. "sql" or "csv"' })
      .min(1)
      .meta({ description: 'The connector type; the other keys depend on it', examples: ['sql'] }),
  })
  .meta({ description: 'A system on the company side (ERP, accounting, POS), named by its key' });

const jobSchema = z
  .strictObject({
    flow: z
      .string({ error: 'expected the flow this job runs, e.g. "orders" or "journal-export"' })
      .min(1)
      .meta({ description: 'The flow this job runs', examples: ['orders'] }),
    connector: z
      .string()
      .min(1)
      .meta({
        description: 'Name of the connector (a key under connectors) the flow works with',
        examples: ['erp'],
      })
      .optional(),
    schedule: cronExpression()
      .meta({
        description: "When the job runs, as a cron expression in the job's time zone",
        examples: ['*/5 * * * *'],
      })
      .optional(),
    timezone: timeZone()
      .meta({
        description: 'Time zone of the schedule; the top-level timezone by default',
        examples: ['Asia/Jerusalem'],
      })
      .optional(),
    enabled: z
      .boolean()
      .meta({ description: 'false keeps the job configured but never runs it' })
      .default(true),
    jitter: duration()
      .meta({ description: 'Random delay of up to this long before each scheduled run', examples: ['30s'] })
      .default(0),
    budget: duration()
      .meta({ description: 'Longest a run may take before it stops at a safe point', examples: ['15m'] })
      .optional(),
    freshness: duration()
      .meta({
        description: 'Readiness fails when the last successful run is older than this',
        examples: ['26h'],
      })
      .optional(),
    dead_letter_share: deadLetterShare()
      .meta({ description: 'Overrides health.dead_letter_share for this job', examples: [0.5] })
      .optional(),
    options: z
      .record(z.string(), z.unknown())
      .meta({ description: 'Settings of the flow; which keys are allowed depends on the flow' })
      .default({}),
  })
  .meta({ description: 'A scheduled run of one flow, named by its key' });

const mappingTable = z
  .record(z.string(), z.union([z.string(), z.number()]).transform(String))
  .meta({ description: 'One mapping table: API value -> value on the company side' });

export const coreConfigSchema = z
  .strictObject({
    api: apiSchema.meta({
      description: 'The Purchasing and Supply API: where it is and how to authenticate',
      examples: [
        { base_url: 'https://api.example.com/v2', api_key: '${SUPPLY_API_KEY}' },
        { sandbox: 'embedded' },
      ],
    }),
    state: stateSchema.meta({ description: "The daemon's state file" }).prefault({}),
    ha: haConfigSchema.optional(),
    server: serverSchema
      .meta({
        description: 'Operations server: /healthz, /readyz, /metrics, /status and the webhook receiver',
      })
      .prefault({}),
    log: logSchema.meta({ description: 'Logging' }).prefault({}),
    health: healthSchema
      .meta({ description: 'How job outcomes and connector checks feed readiness' })
      .prefault({}),
    timezone: timeZone()
      .meta({ description: 'Time zone schedules are read in, daylight-saving changes included' })
      .default(DEFAULT_TIMEZONE),
    connectors: z
      .record(name, connectorSchema)
      .meta({ description: 'Systems on the company side, by name; each block has a type' })
      .default({}),
    jobs: z
      .record(name, jobSchema)
      .meta({
        description: 'Scheduled runs of flows, by name',
        examples: [{ orders: { flow: 'orders', connector: 'erp', schedule: '*/5 * * * *' } }],
      })
      .default({}),
    mappings: z
      .record(z.string(), mappingTable)
      .meta({
        description: 'Mapping tables that flow options refer to by name',
        examples: [{ accounts: { '6100': '61000' } }],
      })
      .default({}),
    notifications: notificationsSchema.optional(),
    companies: companiesSchema.optional(),
  })
  .superRefine((config, ctx) => {
    // Election runs on the shared PostgreSQL state; a SQLite file is kept to one daemon by its lock.
    if (config.ha !== undefined && config.state.url === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['ha'],
        message:
          'ha (leader election) needs a shared PostgreSQL state: set state.url, or remove the ha block to run one instance on the SQLite file',
      });
    }
    checkNotificationJobs(config, ctx);
  });

/** Job names in notification rules and the daily report must name jobs of this config. */
function checkNotificationJobs(
  config: { jobs: Record<string, unknown>; notifications?: z.output<typeof notificationsSchema> | undefined },
  ctx: z.RefinementCtx,
): void {
  const block = config.notifications;
  if (block === undefined) return;
  const known = Object.keys(config.jobs);
  const check = (names: readonly string[] | undefined, path: (string | number)[]) =>
    names?.forEach((name, index) => {
      if (name in config.jobs) return;
      const close = closestMatch(name, known);
      ctx.addIssue({
        code: 'custom',
        path: ['notifications', ...path, index],
        message: `no job named "${name}"${close === undefined ? '' : ` (did you mean "${close}"?)`}; the jobs under jobs: are ${known.join(', ') || 'none'}`,
      });
    });
  block.rules.forEach((rule, index) => check(rule.jobs, ['rules', index, 'jobs']));
  check(block.daily_report?.jobs, ['daily_report', 'jobs']);
}

export type CoreConfig = z.output<typeof coreConfigSchema>;
export type JobConfig = CoreConfig['jobs'][string];
