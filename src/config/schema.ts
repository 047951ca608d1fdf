/** The core config schema. Connector blocks and job options are checked afterwards against the registry. */
import { z } from 'zod';
import { parseCron } from '../scheduler/cron.js';
import { isValidTimeZone } from '../scheduler/zoned-time.js';
import { duration } from './duration.js';
import {
  caFileSchema,
  opsAuthSchema,
  proxySchema,
  serverTlsSchema,
  webhookListenerSchema,
} from './network-schema.js';
import { secret } from './secret.js';

export const DEFAULT_TIMEZONE = 'Asia/Jerusalem';
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
      .optional(),
    sandbox: z.literal('embedded', { error: 'expected "embedded" (start the built-in sandbox)' }).optional(),
    api_key: secret('an API key (svc_test_... or svc_live_...)').optional(),
    auth: z.enum(['api_key', 'oauth']).default('api_key'),
    client_id: z.string().min(1).optional(),
    timeout: duration().default(30_000),
    max_concurrency: z.number().int().min(1).max(64).default(4),
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
    if (api.auth === 'oauth' && api.client_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['client_id'], message: 'is required when auth is oauth' });
    }
  });

/** Relative to the config file's folder. */
const stateSchema = z.strictObject({ path: z.string().min(1).default('state/supply-sync.db') });

const serverSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(8080),
  webhook_path: z
    .string()
    .startsWith('/', { error: 'expected a path starting with "/"' })
    .default('/webhooks'),
  webhook_secrets: z.array(secret('a webhook signing secret')).default([]),
  max_body_bytes: z
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024),
  tls: serverTlsSchema.optional(),
  auth: opsAuthSchema.optional(),
  webhooks: webhookListenerSchema.optional(),
});

const logSchema = z.strictObject({
  level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Human-readable lines; "auto" (the default) on a terminal only, JSON lines into pipes and files. */
  pretty: z
    .union([z.boolean(), z.literal('auto')], { error: 'expected true, false or "auto"' })
    .default('auto'),
});

/** The share of a run's records that may go to dead letters before the run counts as failed. */
const deadLetterShare = () =>
  z
    .number({ error: 'expected a share between 0 and 1, e.g. 0.2 for 20%' })
    .min(0, { error: 'expected a share between 0 and 1, e.g. 0.2 for 20%' })
    .max(1, { error: 'expected a share between 0 and 1, e.g. 0.2 for 20%' });

const healthSchema = z.strictObject({
  /** How often each connector's check runs in the daemon. */
  connector_check_interval: duration().default(30_000),
  dead_letter_share: deadLetterShare().default(0.2),
});

const connectorSchema = z.looseObject({
  type: z.string({ error: 'expected the connector type, e.g. "sql" or "csv"' }).min(1),
});

const jobSchema = z.strictObject({
  flow: z.string({ error: 'expected the flow this job runs, e.g. "orders" or "journal-export"' }).min(1),
  connector: z.string().min(1).optional(),
  schedule: cronExpression().optional(),
  timezone: timeZone().optional(),
  enabled: z.boolean().default(true),
  jitter: duration().default(0),
  budget: duration().optional(),
  freshness: duration().optional(),
  /** Overrides health.dead_letter_share for this job. */
  dead_letter_share: deadLetterShare().optional(),
  options: z.record(z.string(), z.unknown()).default({}),
});

const mappingTable = z.record(z.string(), z.union([z.string(), z.number()]).transform(String));

export const coreConfigSchema = z.strictObject({
  api: apiSchema,
  state: stateSchema.prefault({}),
  server: serverSchema.prefault({}),
  log: logSchema.prefault({}),
  health: healthSchema.prefault({}),
  timezone: timeZone().default(DEFAULT_TIMEZONE),
  connectors: z.record(name, connectorSchema).default({}),
  jobs: z.record(name, jobSchema).default({}),
  mappings: z.record(z.string(), mappingTable).default({}),
});

export type CoreConfig = z.output<typeof coreConfigSchema>;
export type JobConfig = CoreConfig['jobs'][string];
