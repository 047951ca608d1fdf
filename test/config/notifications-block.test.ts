import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, secretValues } from '../../src/config/index.js';
import { MINIMAL, registryWithConnectors } from './fixtures.js';

const FILES: Record<string, string> = { '/etc/supply-sync/smtp-password': 'smtp-pw-from-file\n' };

const parse = (text: string) =>
  parseConfig('/etc/supply-sync/config.yaml', text, {
    env: { SMTP_PASSWORD: 'smtp-pw-env', TEAMS_URL: 'https://teams.example.com/hook/tok3n-abc' },
    registry: registryWithConnectors(),
    readFile: (path: string) => {
      const content = FILES[path];
      if (content === undefined) throw Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' });
      return content;
    },
  });

function issues(text: string): ConfigError['issues'] {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const CHANNELS = `notifications:
  channels:
    accountant:
      type: email
      host: smtp.example.com
      port: 587
      username: reports
      password_file: smtp-password
      from: supply-sync@example.com
      to: [accountant@example.com]
    it:
      type: webhook
      preset: teams
      url: \${TEAMS_URL}
`;

describe('the notifications block', () => {
  it('parses channels, rules with defaults and the daily report; secrets from _file and ${ENV}', () => {
    const { config } = parse(
      `${MINIMAL}${CHANNELS}  rules:\n    - events: [job_failed, dead_letters]\n      channels: [it]\n  daily_report:\n    at: "07:00"\n    channels: [accountant]\n`,
    );
    const block = config.notifications;
    expect(block?.channels['accountant']).toMatchObject({
      type: 'email',
      security: 'starttls',
      password: 'smtp-pw-from-file',
    });
    expect(block?.channels['it']).toMatchObject({ type: 'webhook', preset: 'teams' });
    expect(block?.rules[0]).toMatchObject({ after_failures: 1, quiet_period: 3_600_000 });
    expect(block?.daily_report?.at).toBe('07:00');
    // Both the SMTP password and the webhook URL (it carries a token) are known secrets, so every output scrubs them.
    const secrets = secretValues(config);
    expect(secrets).toContain('smtp-pw-from-file');
    expect(secrets).toContain('https://teams.example.com/hook/tok3n-abc');
  });

  it('names file, line, key and the expected events for an unknown event', () => {
    const found = issues(
      `${MINIMAL}${CHANNELS}  rules:\n    - events: [job_failed, job_exploded]\n      channels: [it]\n`,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      file: '/etc/supply-sync/config.yaml',
      path: 'notifications.rules[0].events[1]',
      line: 18,
    });
    expect(found[0]?.message).toContain('job_failed, job_recovered');
  });

  it('names an unknown channel in a rule and in the daily report', () => {
    const found = issues(
      `${MINIMAL}${CHANNELS}  rules:\n    - events: [job_failed]\n      channels: [itt]\n  daily_report:\n    at: "07:00"\n    channels: [acountant]\n`,
    );
    expect(found.map((issue) => issue.path)).toEqual([
      'notifications.rules[0].channels[0]',
      'notifications.daily_report.channels[0]',
    ]);
    expect(found[0]?.message).toContain('no channel named "itt"');
    expect(found[0]?.message).toContain('accountant, it');
    expect(found[0]?.line).toBe(19);
  });

  it('refuses a malformed address, naming the key and the expected form', () => {
    const found = issues(
      CHANNELS.replace('to: [accountant@example.com]', 'to: [accountant.example.com]').replace(/^/, MINIMAL),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ path: 'notifications.channels.accountant.to[0]', line: 12 });
    expect(found[0]?.message).toContain('expected an email address');
  });

  it('refuses an http:// webhook URL without printing it', () => {
    const found = issues(
      `${MINIMAL}${CHANNELS.replace('${TEAMS_URL}', 'http://teams.example.com/hook/plain-t0ken')}`,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ path: 'notifications.channels.it.url', line: 16 });
    expect(found[0]?.message).toContain('expected an https:// URL');
    expect(JSON.stringify(found)).not.toContain('plain-t0ken');
  });

  it('names a missing password file and what to do', () => {
    const found = issues(
      `${MINIMAL}${CHANNELS.replace('password_file: smtp-password', 'password_file: missing-pw')}`,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ path: 'notifications.channels.accountant.password_file', line: 10 });
    expect(found[0]?.message).toContain('/etc/supply-sync/missing-pw');
  });

  it('refuses a bad daily report time and an unknown channel type', () => {
    const found = issues(
      `${MINIMAL}notifications:\n  channels:\n    x:\n      type: pager\n  daily_report:\n    at: "7am"\n    channels: [x]\n`,
    );
    const byPath = Object.fromEntries(found.map((issue) => [issue.path, issue.message]));
    expect(byPath['notifications.channels.x.type']).toContain('email');
    expect(byPath['notifications.daily_report.at']).toContain('"07:00"');
  });
});

describe('job names in the notifications block', () => {
  const JOBS = `jobs:\n  journal:\n    flow: sales-push\n  orders:\n    flow: sales-push\n`;

  it('refuses a rule or daily report naming a job the config does not have, naming file, key and the jobs', () => {
    const found = issues(
      `${MINIMAL}${JOBS}${CHANNELS}  rules:\n    - events: [job_failed]\n      channels: [it]\n      jobs: [journal, jornal]\n  daily_report:\n    at: "07:00"\n    channels: [accountant]\n    jobs: [invoices]\n`,
    );
    expect(found.map((issue) => issue.path)).toEqual([
      'notifications.rules[0].jobs[1]',
      'notifications.daily_report.jobs[0]',
    ]);
    expect(found[0]).toMatchObject({ file: '/etc/supply-sync/config.yaml', line: 25 });
    expect(found[0]?.message).toContain(
      'no job named "jornal" (did you mean "journal"?); the jobs under jobs: are journal, orders',
    );
    expect(found[1]?.message).toContain('no job named "invoices"; the jobs under jobs: are journal, orders');
  });

  it('accepts job names the config has', () => {
    const { config } = parse(
      `${MINIMAL}${JOBS}${CHANNELS}  rules:\n    - events: [job_failed]\n      channels: [it]\n      jobs: [journal]\n  daily_report:\n    at: "07:00"\n    channels: [accountant]\n    jobs: [orders]\n`,
    );
    expect(config.notifications?.daily_report?.jobs).toEqual(['orders']);
  });
});
