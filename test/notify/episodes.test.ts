/**
 * Episodes end to end through the real SMTP test server: what an office lives through (a run by hand failing before
 * the daemon starts, a key refused at the very first start, one outage causing several conditions, a restart in the
 * middle) reaches a person exactly once, with the fix, and the recovery states the real length. Events are derived
 * from a real state file as the daemon derives them; mails are read back by mailparser.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { parseConfig, type JobConfig, type NotificationsConfig } from '../../src/config/index.js';
import { scrubSecrets } from '../../src/log/index.js';
import { buildChannels, NotificationSender, Notifier, type Transition } from '../../src/notify/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';
import { makeTestCa, SMTP_PASSWORD, SMTP_USER, startSmtpReceiver, type SmtpReceiver } from './receivers.js';

const ca = makeTestCa('Episodes CA');
let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver(ca);
});
afterAll(async () => {
  await smtp.close();
});

const API_KEY = 'svc_live_9a8b7c6d5e4f3a2b1c0d';
const REVOKED =
  'ApiError: GET /me failed with HTTP 401 key_revoked: API key revoked: This API key has been revoked. (request req_1)';

function config(afterFailures: number): NotificationsConfig {
  const yaml = `api:
  sandbox: embedded
notifications:
  instance: office
  console_url: https://sync.office.local:8081/status
  channels:
    it:
      type: email
      host: 127.0.0.1
      port: ${smtp.port}
      username: ${SMTP_USER}
      password: \${SMTP_PASSWORD}
      ca_file: ${ca.certFile}
      from: supply-sync@example.com
      to: [it@example.com]
  rules:
    - events: [job_failed, job_recovered, api_key_refused, readiness_lost, readiness_restored]
      channels: [it]
      after_failures: ${afterFailures}
`;
  return parseConfig('/etc/supply-sync/config.yaml', yaml, { env: { SMTP_PASSWORD } }).config
    .notifications as NotificationsConfig;
}

const JOBS = new Map([['journal', { flow: 'journal-export', connector: 'books' } as unknown as JobConfig]]);

const keyRefused = (refused: boolean, at: number): Transition => ({
  condition: 'api_key:buyer',
  value: refused ? 'key_revoked' : '',
  state: refused ? 'open' : 'clear',
  event: 'api_key_refused',
  since: at,
  title: 'The API refused the buyer key',
  paragraphs: [
    'GET /me answered HTTP 401 key_revoked. To fix: the key was revoked: create a new key in the API console and set it (api.api_key).',
  ],
  cleared: 'The API accepts the buyer key again',
});

const notReady = (open: boolean): Transition => ({
  condition: 'readiness',
  value: 'not_ready',
  state: open ? 'open' : 'clear',
  event: 'readiness_lost',
  recoveryEvent: 'readiness_restored',
  title: 'supply-sync is not ready',
  paragraphs: ['api: credentials_refused'],
  cleared: 'Every readiness check passes again',
});

describe('failure episodes through a real SMTP server', () => {
  let tmp: TempDir;
  let clock: FakeClock;
  let state: StateStore;

  beforeEach(() => {
    tmp = tempDir();
    clock = new FakeClock(Date.parse('2026-03-02T04:00:00Z'));
    state = openStateStore({ file: tmp.file('state.db'), clock });
    smtp.mails.length = 0;
  });
  afterEach(() => {
    state.close();
    tmp.remove();
  });

  /** One start of the daemon's notification service on this state: a notifier and a sender. */
  function start(notifications: NotificationsConfig) {
    const scrub = (text: string) => scrubSecrets(text, [SMTP_PASSWORD, API_KEY]);
    const origin = { instance: 'office', config: '/etc/supply-sync/config.yaml' };
    const channels = buildChannels(notifications, { origin, baseDir: '/etc', network: { env: {} } });
    const notifier = new Notifier({
      state,
      config: notifications,
      origin,
      timezone: 'Asia/Jerusalem',
      jobs: JOBS,
      watchingSince: clock.now(),
      scrub,
    });
    const sender = new NotificationSender({
      state,
      clock,
      logger: pino({ level: 'silent' }),
      channels,
      maxAttempts: 3,
      perMinute: 20,
      scrub,
    });
    return {
      pass: async (conditions: Transition[] = []) => {
        notifier.derive(clock.now(), conditions);
        await sender.deliverDue();
      },
      close: () => {
        for (const channel of channels.values()) channel.close();
      },
    };
  }

  const run = (outcome: 'ok' | 'failed', error: string | null = null) => {
    const id = state.runs.start('journal', 'cli');
    clock.advance(60_000);
    state.runs.finish(id, outcome, {}, error);
    clock.advance(60_000);
  };
  const subjects = () => smtp.mails.map((mail) => mail.parsed.subject);

  it('tells a failure that began with a run by hand before the daemon started, once, with the fix', async () => {
    run('failed', `${REVOKED} key ${API_KEY}`); // `sync journal` by hand on a fresh state
    const daemon = start(config(2));
    await daemon.pass();
    expect(subjects()).toEqual([]); // one failure: the rule waits for two
    run('failed', REVOKED); // the daemon's first run
    await daemon.pass();
    run('failed', REVOKED); // and its second: the same episode, not told again
    await daemon.pass();
    daemon.close();
    expect(subjects()).toEqual(['[supply-sync office] Job journal failed 2 runs in a row']);
    const text = smtp.mails[0]?.parsed.text ?? '';
    expect(text).toContain('What happened: The API refused the key (HTTP 401 key_revoked on GET /me).');
    expect(text).toContain(
      'To fix: the key was revoked: create a new key in the API console and set it (api.api_key or api.api_key_file)',
    );
    expect(text).toContain('Status page: https://sync.office.local:8081/status');
    expect(text.split('\n')[0]).not.toMatch(/ApiError/);
    expect(JSON.stringify(smtp.mails.map((mail) => mail.raw))).not.toContain(API_KEY);
  });

  it('tells a key refused at the very first start, on a new state, once across a restart', async () => {
    const first = start(config(1));
    await first.pass([keyRefused(true, clock.now()), notReady(false)]);
    first.close();
    expect(subjects()).toEqual(['[supply-sync office] The API refused the buyer key']);
    // The daemon restarts (or is killed): nothing is known of the key before its first call, then it is refused again.
    clock.advance(60_000);
    const second = start(config(1));
    await second.pass([{ ...keyRefused(false, clock.now()), state: 'unknown' }]);
    await second.pass([keyRefused(true, clock.now())]);
    second.close();
    expect(subjects()).toHaveLength(1);
  });

  it('sends one message for one outage, and a recovery that states 2 failed runs and how long it lasted', async () => {
    const daemon = start(config(1));
    await daemon.pass(); // first start: history noted
    const began = clock.now();
    run('failed', REVOKED);
    await daemon.pass([keyRefused(true, began)]);
    run('failed', REVOKED);
    clock.advance(5 * 60_000);
    await daemon.pass([keyRefused(true, began), notReady(true)]);
    expect(subjects()).toEqual(['[supply-sync office] The API refused the buyer key; Job journal failed']);
    expect(smtp.mails[0]?.parsed.text).toContain('2 problems since 2 Mar 2026, 06:00 (Asia/Jerusalem)');
    // The key is replaced: the key is accepted, the daemon is ready, the next run succeeds.
    await daemon.pass([keyRefused(false, began), notReady(false)]);
    expect(subjects()).toHaveLength(1); // the job has not run yet: the episode is not over
    run('ok');
    await daemon.pass([keyRefused(false, began), notReady(false)]);
    daemon.close();
    expect(subjects()).toHaveLength(2);
    expect(subjects()[1]).toMatch(/^\[supply-sync office\] Resolved after 10 min: /);
    const recovery = smtp.mails[1]?.parsed.text ?? '';
    expect(recovery).toContain('after 2 failed runs in a row, over 10 min');
    expect(recovery).toContain('The API accepts the buyer key again');
    expect(recovery).toContain('Every readiness check passes again');
  });
});
