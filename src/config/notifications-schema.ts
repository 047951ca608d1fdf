/** The `notifications:` block: named channels (email, webhook) and rules saying which events go where. */
import * as z from 'zod';
import { duration } from './duration.js';
import type { DeepReadonly } from './freeze.js';
import { markSecret, secret } from './secret.js';

export const NOTIFICATION_EVENTS = [
  'job_failed',
  'job_recovered',
  'job_stale',
  'readiness_lost',
  'readiness_restored',
  'dead_letters',
  'api_key_refused',
  'leadership_gained',
  'leadership_lost',
] as const;

export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

const channelName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*$/, { error: 'expected a lowercase name (letters, digits, - and _)' });

/** RFC 5321-ish: one @, no spaces, a dotted domain; nodemailer and the server judge the rest. */
const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;
const ADDRESS_HINT = 'expected an email address like accounts@example.com';

const emailAddress = () =>
  z
    .string({ error: ADDRESS_HINT })
    .regex(ADDRESS, { error: ADDRESS_HINT })
    .meta({ examples: ['accounts@example.com'] });

const emailChannelSchema = z
  .strictObject({
    type: z.literal('email').meta({ description: 'An email channel (SMTP)', examples: ['email'] }),
    host: z
      .string({ error: 'expected the SMTP server name, e.g. smtp.example.com' })
      .min(1)
      .meta({ description: 'SMTP server', examples: ['smtp.example.com'] }),
    port: z
      .number()
      .int()
      .min(1)
      .max(65_535)
      .meta({
        description: 'SMTP port; 587 with starttls, 465 with tls, 25 with none by default',
        examples: [587],
      })
      .optional(),
    security: z
      .enum(['starttls', 'tls', 'none'], { error: 'expected starttls, tls or none' })
      .meta({
        description:
          'starttls: plain connection upgraded to TLS, refused when the server cannot; tls: TLS from the first byte (port 465); none: local relays only',
      })
      .default('starttls'),
    username: z
      .string()
      .min(1)
      .meta({
        description: 'SMTP user name, when the server asks for a login',
        examples: ['reports@example.com'],
      })
      .optional(),
    password: secret('the SMTP password')
      .meta({
        description: 'SMTP password, as ${ENV} or password_file; never printed',
        examples: ['${SMTP_PASSWORD}'],
      })
      .optional(),
    ca_file: z
      .string()
      .min(1)
      .meta({
        description:
          "PEM CA certificates trusted for the SMTP server's certificate; relative to the config file",
        examples: ['/etc/supply-sync/mail-ca.pem'],
      })
      .optional(),
    from: emailAddress().meta({ description: 'Sender address' }),
    to: z
      .array(emailAddress(), { error: 'expected a list of email addresses' })
      .min(1, { error: 'expected at least one recipient' })
      .meta({ description: 'Recipients', examples: [['accounts@example.com']] }),
  })
  .refine((channel) => (channel.username === undefined) === (channel.password === undefined), {
    error: 'expected username and password together (or neither, for a relay without login)',
    // On the password: a password_file that could not be read is reported there once, not twice.
    path: ['password'],
  });

const webhookChannelSchema = z.strictObject({
  type: z.literal('webhook').meta({ description: 'A chat or HTTPS webhook channel', examples: ['webhook'] }),
  url: markSecret(
    z.url({
      protocol: /^https$/,
      error: 'expected an https:// URL (webhook URLs carry a token: never plain http)',
    }),
  ).meta({
    description:
      'Incoming-webhook URL; it carries a token, so give it as ${ENV} or url_file and it is never printed',
    // The real URL comes from ${ENV} or url_file; an example must match the format.
    examples: ['https://example.webhook.office.com/webhookb2/your-token'],
  }),
  preset: z
    .enum(['teams', 'slack', 'plain'], { error: 'expected teams, slack or plain' })
    .meta({
      description:
        'Body format: teams (Microsoft Teams workflow/connector message card), slack (incoming webhook), plain (our own JSON)',
    })
    .default('plain'),
  ca_file: z
    .string()
    .min(1)
    .meta({
      description:
        "PEM CA certificates trusted for the receiver's certificate besides api.ca_file and the system store; relative to the config file",
      examples: ['/etc/supply-sync/teams-proxy-ca.pem'],
    })
    .optional(),
});

export const notificationChannelSchema = z
  .discriminatedUnion('type', [emailChannelSchema, webhookChannelSchema], {
    error: 'expected type: email or type: webhook',
  })
  .meta({ description: 'Where messages go, named by its key' });

const ruleSchema = z.strictObject({
  events: z
    .array(z.enum(NOTIFICATION_EVENTS, { error: `expected one of ${NOTIFICATION_EVENTS.join(', ')}` }))
    .min(1, { error: 'expected at least one event' })
    .meta({ description: 'Events this rule sends', examples: [['job_failed', 'job_recovered']] }),
  channels: z
    .array(channelName)
    .min(1, { error: 'expected at least one channel name' })
    .meta({ description: 'Names of channels (keys under notifications.channels)', examples: [['it-teams']] }),
  jobs: z
    .array(z.string().min(1))
    .meta({ description: 'Only these jobs (job events only); all jobs when absent', examples: [['journal']] })
    .optional(),
  after_failures: z
    .number()
    .int()
    .min(1)
    .meta({ description: 'job_failed: send once a job has failed this many runs in a row' })
    .default(1),
  quiet_period: duration()
    .meta({ description: 'dead_letters: at most one message per job in this period', examples: ['1h'] })
    .default(3_600_000),
});

const TIME_HINT = 'expected a time of day like "07:00"';

const dailyReportSchema = z.strictObject({
  at: z
    .string({ error: TIME_HINT })
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: TIME_HINT })
    .meta({ description: 'When the report is sent, in the top-level timezone', examples: ['07:00'] }),
  channels: z
    .array(channelName)
    .min(1, { error: 'expected at least one channel name' })
    .meta({ description: 'Names of channels the report goes to', examples: [['accountant']] }),
  jobs: z
    .array(z.string().min(1))
    .meta({ description: 'Jobs reported; all when absent', examples: [['journal']] })
    .optional(),
});

export const notificationsSchema = z
  .strictObject({
    instance: z
      .string()
      .min(1)
      .meta({
        description: 'Name of this installation in every message; ha.instance or the host name by default',
        examples: ['office-server'],
      })
      .optional(),
    console_url: z
      .url({
        protocol: /^https?$/,
        error: 'expected an http(s) URL, e.g. https://sync.office.local:8081/status',
      })
      .meta({
        description: 'Address of the status page as people open it; every problem message links to it',
        examples: ['https://sync.office.local:8081/status'],
      })
      .optional(),
    channels: z
      .record(channelName, notificationChannelSchema)
      .meta({
        description: 'Where messages go, by name',
        examples: [
          {
            accountant: {
              type: 'email',
              host: 'smtp.example.com',
              from: 'supply-sync@example.com',
              to: ['accounts@example.com'],
            },
          },
        ],
      })
      .default({}),
    rules: z
      .array(ruleSchema)
      .meta({
        description: 'Which events go to which channels',
        examples: [[{ events: ['job_failed', 'job_recovered'], channels: ['it-teams'] }]],
      })
      .default([]),
    daily_report: dailyReportSchema
      .meta({
        description: 'A report of the last 24 hours per job',
        examples: [{ at: '07:00', channels: ['accountant'] }],
      })
      .optional(),
    poll_interval: duration()
      .meta({
        description: 'How often the leader looks for new events and sends what is due',
        examples: ['10s'],
      })
      .default(10_000),
    max_attempts: z
      .number()
      .int()
      .min(1)
      .max(100)
      .meta({ description: 'Tries per message before it is given up (logged and counted)' })
      .default(12),
    per_minute: z
      .number()
      .int()
      .min(1)
      .meta({ description: 'Most messages one channel sends per minute; the rest wait' })
      .default(20),
  })
  .superRefine((block, ctx) => {
    const defined = Object.keys(block.channels);
    const check = (names: readonly string[], path: (string | number)[]) =>
      names.forEach((name, index) => {
        if (name in block.channels) return;
        ctx.addIssue({
          code: 'custom',
          path: [...path, index],
          message: `no channel named "${name}" (defined under notifications.channels: ${defined.join(', ') || 'none'})`,
        });
      });
    block.rules.forEach((rule, index) => check(rule.channels, ['rules', index, 'channels']));
    if (block.daily_report) check(block.daily_report.channels, ['daily_report', 'channels']);
  })
  .meta({ description: 'Email and chat notifications, and the daily report' });

/** As the loaded (frozen) config holds it. */
export type NotificationsConfig = DeepReadonly<z.output<typeof notificationsSchema>>;
export type NotificationChannelConfig = DeepReadonly<z.output<typeof notificationChannelSchema>>;
export type NotificationRule = NotificationsConfig['rules'][number];
