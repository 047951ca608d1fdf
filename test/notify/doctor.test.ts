/** Doctor's notification checks against the real receivers: reachability and login, sending nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCheck } from '../../src/cli/doctor/check.js';
import { notificationChecks } from '../../src/cli/doctor/notification-checks.js';
import { parseConfig } from '../../src/config/index.js';
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

const ca = makeTestCa('Doctor Test CA');
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

function loaded(password: string, trustCa: boolean) {
  const caLine = trustCa ? `\n      ca_file: ${ca.certFile}` : '';
  return parseConfig(
    '/etc/supply-sync/config.yaml',
    `api:
  sandbox: embedded
notifications:
  channels:
    mail:
      type: email
      host: 127.0.0.1
      port: ${smtp.port}
      username: ${SMTP_USER}
      password: \${PW}${caLine}
      from: supply-sync@example.com
      to: [it@example.com]
    teams:
      type: webhook
      preset: teams
      url: \${HOOK}${caLine}
`,
    { env: { PW: password, HOOK: hook.url } },
  );
}

function parseConfigWithCa(caFile: string) {
  return parseConfig(
    '/etc/supply-sync/config.yaml',
    `api:\n  sandbox: embedded\nnotifications:\n  channels:\n    mail:\n      type: email\n      host: 127.0.0.1\n      ca_file: ${caFile}\n      from: a@example.com\n      to: [b@example.com]\n`,
  );
}

describe('doctor notification checks', () => {
  it('says OK for a reachable server that accepts the login and a trusted receiver, and sends nothing', async () => {
    const secrets: string[] = [SMTP_PASSWORD];
    const results = await notificationChecks(loaded(SMTP_PASSWORD, true), {}, secrets);
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['notify mail', 'ok'],
      ['notify teams', 'ok'],
    ]);
    expect(results[0]?.detail).toContain('login accepted; nothing sent');
    expect(results[1]?.detail).toContain('TLS handshake ok');
    expect(smtp.mails).toHaveLength(0);
    expect(hook.bodies).toHaveLength(0);
    const printed = results.map(formatCheck).join('\n');
    expect(printed).not.toContain(WEBHOOK_TOKEN);
    expect(printed).not.toContain(SMTP_PASSWORD);
  });

  it('fails a refused login and an untrusted certificate, each with its fix and no secret', async () => {
    const wrong = 'wrong-password-123456';
    const results = await notificationChecks(loaded(wrong, false), {}, [wrong]);
    expect(results.map((r) => r.status)).toEqual(['fail', 'fail']);
    // Without the CA the SMTP server's certificate is refused before any login is tried.
    expect(results[0]?.fix).toContain('notifications.channels.mail.ca_file');
    expect(results[1]?.detail).toContain('certificate not trusted');
    expect(results[1]?.fix).toContain('notifications.channels.teams.ca_file');
    const printed = results.map(formatCheck).join('\n');
    expect(printed).not.toContain(WEBHOOK_TOKEN);
    expect(printed).not.toContain(wrong);
  });

  it('names a channel ca_file that cannot be read, without crashing', async () => {
    const missing = parseConfigWithCa('/nonexistent/ca.pem');
    const results = await notificationChecks(missing, {}, []);
    expect(results).toEqual([
      expect.objectContaining({
        status: 'fail',
        name: 'notifications',
        detail: expect.stringContaining(
          'notifications.channels.mail.ca_file: cannot read /nonexistent/ca.pem (ENOENT)',
        ),
      }),
    ]);
  });

  it('names the password when the server refuses the login', async () => {
    const wrong = 'wrong-password-123456';
    const results = await notificationChecks(loaded(wrong, true), {}, [wrong]);
    expect(results[0]).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('username and password'),
    });
    expect(formatCheck(results[0]!)).not.toContain(wrong);
  });
});
