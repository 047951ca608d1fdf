/**
 * Notifications end to end without the daemon: events derived from a real state file, queued, and delivered to a
 * real SMTP server (smtp-server, STARTTLS, login) and an HTTPS receiver, both with certificates of a private CA.
 * What arrived is read by mailparser (headers, text, HTML, Hebrew) and JSON.parse.
 */
import { pino } from 'pino';
import { missingMappingReason } from '../../src/shared/missing-mapping.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, type JobConfig, type NotificationsConfig } from '../../src/config/index.js';
import {
  buildChannels,
  channelSecrets,
  NotificationSender,
  Notifier,
  type DeliveryOutcome,
} from '../../src/notify/index.js';
import { scrubSecrets } from '../../src/log/index.js';
import { noteWrittenBatch, openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';
import {
  makeTestCa,
  SMTP_PASSWORD,
  SMTP_USER,
  startSmtpReceiver,
  startWebhookReceiver,
  WEBHOOK_TOKEN,
  type SmtpReceiver,
  type WebhookReceiver,
} from './receivers.js';

const ca = makeTestCa('Notify Test CA');
let smtp: SmtpReceiver;
let hook: WebhookReceiver;

beforeAll(async () => {
  smtp = await startSmtpReceiver(ca);
  hook = await startWebhookReceiver(ca);
});
afterAll(async () => {
  await smtp.close();
  await hook.close();
});

function notificationsConfig(preset = 'teams'): NotificationsConfig {
  const yaml = `api:
  sandbox: embedded
notifications:
  instance: הנהלת-חשבונות
  channels:
    accountant:
      type: email
      host: 127.0.0.1
      port: ${smtp.port}
      username: ${SMTP_USER}
      password: \${SMTP_PASSWORD}
      ca_file: ${ca.certFile}
      from: supply-sync@example.com
      to: [accountant@example.com]
    it:
      type: webhook
      preset: ${preset}
      url: \${TEAMS_URL}
      ca_file: ${ca.certFile}
  rules:
    - events: [job_failed]
      channels: [it, accountant]
      after_failures: 2
    - events: [job_recovered, dead_letters]
      channels: [it, accountant]
  daily_report:
    at: "07:00"
    channels: [accountant, it]
`;
  const { config } = parseConfig('/etc/supply-sync/config.yaml', yaml, {
    env: { SMTP_PASSWORD, TEAMS_URL: hook.url },
  });
  return config.notifications as NotificationsConfig;
}

/** The fix for an unmapped account, the same in the dead-letter message and in the daily report. */
const FIX_6105 =
  'To fix: add 6105 under mappings.accounts in /etc/supply-sync/config.yaml, ' +
  'then run `supply-sync config reload`; the next run exports them.';

const JOBS = new Map<string, JobConfig>([
  ['journal', { flow: 'journal-export', connector: 'books', enabled: true } as unknown as JobConfig],
  ['orders', { flow: 'orders', connector: 'erp', enabled: true } as unknown as JobConfig],
]);

describe('notifications delivered to a real SMTP server and an HTTPS receiver', () => {
  let tmp: TempDir;
  let clock: FakeClock;
  let state: StateStore;
  let logged: string[];
  let outcomes: Array<[string, DeliveryOutcome]>;

  beforeEach(() => {
    tmp = tempDir();
    // 06:00 in Jerusalem (UTC+2 in early March): before the daily report is due.
    clock = new FakeClock(Date.parse('2026-03-02T04:00:00Z'));
    state = openStateStore({ file: tmp.file('state.db'), clock });
    logged = [];
    outcomes = [];
    smtp.mails.length = 0;
    hook.bodies.length = 0;
  });
  afterEach(() => {
    state.close();
    tmp.remove();
  });

  function parts(config: NotificationsConfig, perMinute = 20) {
    const secrets = [SMTP_PASSWORD, ...channelSecrets(config)];
    const scrub = (text: string) => scrubSecrets(text, secrets);
    const origin = { instance: config.instance ?? 'x', config: '/etc/supply-sync/config.yaml' };
    const channels = buildChannels(config, { origin, baseDir: '/etc/supply-sync', network: { env: {} } });
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    const notifier = new Notifier({
      state,
      config,
      origin,
      timezone: 'Asia/Jerusalem',
      jobs: JOBS,
      watchingSince: clock.now(),
      scrub,
    });
    const sender = new NotificationSender({
      state,
      clock,
      logger,
      channels,
      maxAttempts: 5,
      perMinute,
      scrub,
      onOutcome: (channel, outcome) => outcomes.push([channel, outcome]),
    });
    return { notifier, sender, channels };
  }

  const run = (
    outcome: 'ok' | 'failed',
    error: string | null = null,
    counts: Record<string, number> = {},
  ) => {
    const id = state.runs.start('journal', 'schedule');
    clock.advance(1000);
    state.runs.finish(id, outcome, counts, error);
    clock.advance(1000);
  };

  /** A journal document held back as the journal export files it: account 6105 is not in mappings.accounts. */
  const unmapped = (documentId: string, lineId: string) => {
    const missing = { kind: 'accounts', table: 'accounts', key: '6105' };
    state.deadLetters.add(
      'journal',
      `document:${documentId}`,
      { kind: 'unmapped', documentId, missing },
      missingMappingReason(missing, lineId),
    );
  };

  it('sends a failure after two failed runs, a recovery and batched dead letters, each once, secrets kept out', async () => {
    const config = notificationsConfig();
    const { notifier, sender, channels } = parts(config);
    notifier.derive(clock.now()); // the first pass only notes where history stands
    run('failed', 'the accounting folder \\\\srv\\books is not writable: הרשאה נדחתה');
    expect(notifier.derive(clock.now())).toBe(0); // one failure: the rule waits for two
    run('failed', 'the accounting folder \\\\srv\\books is not writable: הרשאה נדחתה');
    unmapped('doc-1', 'jl_1');
    unmapped('doc-2', 'jl_7');
    run('ok', null, { lines_exported: 12 });
    expect(notifier.derive(clock.now())).toBe(6); // failure, recovery and dead letters, each to 2 channels
    expect(notifier.derive(clock.now())).toBe(0); // derived again: nothing new
    expect(await sender.deliverDue()).toBe(6);
    expect(await sender.deliverDue()).toBe(0);

    expect(smtp.mails.map((m) => m.parsed.subject)).toEqual([
      '[supply-sync הנהלת-חשבונות] Job journal failed 2 runs in a row',
      '[supply-sync הנהלת-חשבונות] Resolved after 5 s: Job journal failed 2 runs in a row',
      '[supply-sync הנהלת-חשבונות] Job journal: 2 record(s) held back',
    ]);
    expect(smtp.mails[2]?.parsed.text).toContain(
      `2 × accounts value "6105" has no entry in mappings.accounts (for example doc-1, doc-2). ${FIX_6105}`,
    );
    // The recovery states the episode's real length: two failed runs, not one.
    expect(smtp.mails[1]?.parsed.text).toContain(
      'again at 2 Mar 2026, 06:00 (Asia/Jerusalem) after 2 failed runs in a row, over 5 s',
    );
    const mail = smtp.mails[0]!;
    expect(mail.secure).toBe(true);
    expect(smtp.logins.length).toBeGreaterThan(0);
    expect(smtp.logins.every((user) => user === SMTP_USER)).toBe(true);
    expect(mail.parsed.subject).toBe('[supply-sync הנהלת-חשבונות] Job journal failed 2 runs in a row');
    expect(mail.parsed.text).toContain('הרשאה נדחתה');
    expect(mail.parsed.html).toContain('הרשאה נדחתה');
    expect(mail.parsed.text).toContain(
      'Sent by supply-sync on הנהלת-חשבונות (config /etc/supply-sync/config.yaml)',
    );
    expect(mail.parsed.messageId).toMatch(/^<[0-9a-f]{32}\.accountant@/);
    expect(mail.parsed.headers.get('x-supply-sync-event')).toBe('job_failed');
    // Hebrew goes as encoded words in the header and as UTF-8 in the body, never raw 8-bit.
    expect(mail.raw).toMatch(/^Subject: =\?UTF-8\?[BQ]\?/im);
    expect(mail.raw).toMatch(/charset=utf-8/i);

    const subjects = hook.bodies.map((b) => (b.body as TeamsBody).attachments[0].content.body[0].text);
    expect(subjects).toEqual([
      '[supply-sync הנהלת-חשבונות] Job journal failed 2 runs in a row',
      '[supply-sync הנהלת-חשבונות] Resolved after 5 s: Job journal failed 2 runs in a row',
      '[supply-sync הנהלת-חשבונות] Job journal: 2 record(s) held back',
    ]);
    const held = (hook.bodies[2]!.body as TeamsBody).attachments[0].content.body[1].text;
    expect(held).toContain('2 × accounts value "6105" has no entry in mappings.accounts');
    expect(held).toContain(FIX_6105);
    expect(hook.bodies.every((b) => b.path === `/hook/${WEBHOOK_TOKEN}`)).toBe(true);
    // One worker per channel: the two channels' outcomes interleave in any order.
    expect(outcomes.map((o) => o.join(' ')).sort()).toEqual([
      'accountant sent',
      'accountant sent',
      'accountant sent',
      'it sent',
      'it sent',
      'it sent',
    ]);

    const everything = JSON.stringify([
      logged,
      state.notifications.list(),
      smtp.mails.map((m) => m.raw),
      hook.bodies.map((b) => b.body),
    ]);
    expect(everything).not.toContain(SMTP_PASSWORD);
    expect(everything).not.toContain(WEBHOOK_TOKEN);
    for (const channel of channels.values()) channel.close();
  });

  it('retries a webhook the receiver refused with 503, and counts the retry', async () => {
    const config = notificationsConfig('plain');
    const { notifier, sender, channels } = parts(config);
    notifier.derive(clock.now());
    run('failed', 'x');
    run('failed', 'x');
    notifier.derive(clock.now());
    hook.answers.push(503);
    await sender.deliverDue();
    expect(hook.bodies).toHaveLength(0);
    const [queued] = state.notifications.list('it');
    expect(queued).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: 'the receiver answered HTTP 503: busy',
    });
    expect(await sender.deliverDue()).toBe(0); // not before its time
    clock.advance(30_000);
    expect(await sender.deliverDue()).toBe(1);
    expect(hook.bodies).toHaveLength(1);
    const body = hook.bodies[0]!;
    expect(body.body).toMatchObject({
      event: 'job_failed',
      instance: 'הנהלת-חשבונות',
      config: '/etc/supply-sync/config.yaml',
    });
    expect(body.headers['idempotency-key']).toBe((body.body as { id: string }).id);
    expect(outcomes.filter(([channel]) => channel === 'it')).toEqual([
      ['it', 'retry'],
      ['it', 'sent'],
    ]);
    expect(logged.join('\n')).not.toContain(WEBHOOK_TOKEN);
    for (const channel of channels.values()) channel.close();
  });

  it('sends the daily report once after 07:00 in the configured time zone, in text and HTML', async () => {
    const config = notificationsConfig();
    const { notifier, sender, channels } = parts(config);
    notifier.derive(clock.now());
    run('ok', null, { lines_exported: 40, batches_written: 2, dead_lettered: 1 });
    const orders = state.runs.start('orders', 'schedule');
    state.runs.finish(orders, 'ok', { fetched: 9, delivered: 7, duplicates: 0 }, null);
    // Two batches as the journal export notes them; the second run wrote the second (and nothing twice).
    const batch = (location: string, references: string[], rows: number, ils: string) => ({
      at: clock.now(),
      location,
      references,
      rows,
      debits: { ILS: ils },
    });
    noteWrittenBatch(state.kv, 'books', 'b1', batch('exports/2026-03-01-1.csv', ['INV-1001'], 2, '1000.00'));
    run('ok', null, { lines_exported: 40, batches_written: 2 });
    noteWrittenBatch(state.kv, 'books', 'b2', batch('exports/2026-03-01-2.csv', ['INV-1002'], 1, '250.50'));
    unmapped('doc-9', 'jl_9');
    expect(notifier.dailyReport(clock.now())).toBe(0); // 06:00 local: not yet
    clock.advance(60 * 60_000); // 07:00 local
    expect(notifier.dailyReport(clock.now())).toBe(2); // email and webhook
    expect(notifier.dailyReport(clock.now() + 3_600_000)).toBe(0);
    expect(await sender.deliverDue()).toBe(2);
    expect(smtp.mails).toHaveLength(1);
    const card = (hook.bodies[0]!.body as TeamsBody).attachments[0];
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.content.body[1].text).toContain(
      'Written to books: 2 document(s), 3 line(s), total ILS 1,250.50',
    );
    const { parsed } = smtp.mails[0]!;
    expect(parsed.subject).toBe(
      '[supply-sync הנהלת-חשבונות] Daily report 2 Mar 2026, 07:00 (Asia/Jerusalem)',
    );
    // Counted from what the batches wrote, each document and line once: not the runs' counts added up.
    expect(parsed.text).toContain(
      '  - Written to books: 2 document(s), 3 line(s), total ILS 1,250.50\n' +
        '  - Documents: INV-1001, INV-1002\n' +
        '  - Batches (files) written: exports/2026-03-01-1.csv, exports/2026-03-01-2.csv',
    );
    expect(parsed.text).not.toContain('40');
    expect(parsed.text).toContain(
      `Held back: 1 × accounts value "6105" has no entry in mappings.accounts (for example doc-9). ${FIX_6105}`,
    );
    expect(parsed.html).toContain('<li>Written to books: 2 document(s), 3 line(s), total ILS 1,250.50</li>');
    expect(parsed.text).toContain(
      'orders (orders)\n  - 1 run(s), 0 failed.\n  - records read: 9\n  - orders written to the ERP: 7',
    );
    expect(parsed.text).toContain('(Asia/Jerusalem)');
    for (const channel of channels.values()) channel.close();
  });

  it('keeps to the per-minute limit of a channel and gives up at once on an answer that cannot change', async () => {
    const config = { ...notificationsConfig('plain') };
    const { sender, channels } = parts(config, 2);
    for (const key of ['a', 'b', 'c', 'd']) {
      state.notifications.enqueue({
        dedupKey: key,
        channel: 'it',
        event: 'job_failed',
        message: JSON.stringify({
          event: 'job_failed',
          severity: 'error',
          subject: key,
          text: key,
          html: key,
        }),
      });
    }
    hook.answers.push(404);
    expect(await sender.deliverDue()).toBe(3); // a given up (404), b and c sent: the limit is reached
    expect(hook.bodies.map((b) => (b.body as { subject: string }).subject)).toEqual(['b', 'c']);
    expect(state.notifications.list('it').map((n) => [n.dedupKey, n.status])).toEqual([
      ['d', 'pending'],
      ['c', 'sent'],
      ['b', 'sent'],
      ['a', 'failed'],
    ]);
    clock.advance(60_000);
    expect(await sender.deliverDue()).toBe(1);
    expect(outcomes).toEqual([
      ['it', 'failed'],
      ['it', 'sent'],
      ['it', 'sent'],
      ['it', 'sent'],
    ]);
    for (const channel of channels.values()) channel.close();
  });

  it('verifies the SMTP login without sending anything', async () => {
    const config = notificationsConfig();
    const { channels } = parts(config);
    smtp.logins.length = 0;
    await channels.get('accountant')!.verify!();
    expect(smtp.logins).toEqual([SMTP_USER]);
    expect(smtp.mails).toHaveLength(0);
    for (const channel of channels.values()) channel.close();
  });
});

interface TeamsBody {
  attachments: [{ contentType: string; content: { body: [{ text: string }, { text: string }] } }];
}
