/** `supply-sync notify test` and `config validate` as a user runs them, against the real receivers. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { noteWrittenBatch, openStateStore } from '../../src/state/index.js';
import { runCli, STACK_LINE } from '../cli/run-cli.js';
import { tempDir } from '../state/support.js';
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

const ca = makeTestCa('CLI Test CA');
const tmp = tempDir('supply-sync-notify-cli-');
let smtp: SmtpReceiver;
let hook: WebhookReceiver;
let configFile: string;

beforeAll(async () => {
  smtp = await startSmtpReceiver(ca);
  hook = await startWebhookReceiver(ca);
  writeFileSync(join(tmp.dir, 'smtp-password'), `${SMTP_PASSWORD}\n`);
  configFile = join(tmp.dir, 'config.yaml');
  writeFileSync(
    configFile,
    `api:
  sandbox: embedded
state:
  path: state.db
notifications:
  instance: office
  channels:
    accountant:
      type: email
      host: 127.0.0.1
      port: ${smtp.port}
      username: ${SMTP_USER}
      password_file: smtp-password
      ca_file: ${ca.certFile}
      from: supply-sync@example.com
      to: [accountant@example.com]
    it:
      type: webhook
      preset: slack
      url: \${HOOK_URL}
      ca_file: ${ca.certFile}
`,
  );
});
afterAll(async () => {
  await smtp.close();
  await hook.close();
  tmp.remove();
});

describe('supply-sync notify test', () => {
  it('sends through every channel and prints what each server answered, without secrets', async () => {
    const result = await runCli(['notify', 'test', '--config', configFile], { HOOK_URL: hook.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^OK {3}accountant \(email\): 250 queued as m\d+$/m);
    expect(result.stdout).toMatch(/^OK {3}it \(webhook\): HTTP 200: 1$/m);
    expect(smtp.mails.map((m) => m.parsed.subject)).toEqual(['[supply-sync office] Test message']);
    expect((hook.bodies[0]?.body as { text: string }).text).toContain('*[supply-sync office] Test message*');
    expect(result.stdout + result.stderr).not.toContain(WEBHOOK_TOKEN);
    expect(result.stdout + result.stderr).not.toContain(SMTP_PASSWORD);
  });

  it('sends through one channel with --channel, and refuses an unknown one by name', async () => {
    const before = smtp.mails.length;
    const one = await runCli(['notify', 'test', '--channel', 'it', '--config', configFile], {
      HOOK_URL: hook.url,
    });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).not.toContain('accountant');
    expect(smtp.mails).toHaveLength(before);
    const unknown = await runCli(['notify', 'test', '--channel', 'sales', '--config', configFile], {
      HOOK_URL: hook.url,
    });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no channel named "sales" (defined: accountant, it)');
    expect(unknown.stderr).not.toMatch(STACK_LINE);
  });

  it('prints the failure and exits non-zero when the receiver refuses', async () => {
    hook.answers.push(403);
    const result = await runCli(['notify', 'test', '--channel', 'it', '--config', configFile], {
      HOOK_URL: hook.url,
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toContain('FAIL it (webhook): the receiver answered HTTP 403: busy');
    expect(result.stdout + result.stderr).not.toContain(WEBHOOK_TOKEN);
  });
});

describe('supply-sync config validate with a bad notifications block', () => {
  it('names file, line, key and what was expected', async () => {
    const bad = join(tmp.dir, 'bad.yaml');
    writeFileSync(
      bad,
      `api:
  sandbox: embedded
notifications:
  channels:
    it:
      type: webhook
      url: http://hooks.example.com/plain
  rules:
    - events: [job_broke]
      channels: [it]
`,
    );
    const result = await runCli(['config', 'validate', '--config', bad]);
    expect(result.code).not.toBe(0);
    const output = result.stdout + result.stderr;
    expect(output).toContain(`${bad}:7:12 notifications.channels.it.url: expected an https:// URL`);
    expect(output).toMatch(
      new RegExp(`${bad}:9:\\d+ notifications\\.rules\\[0\\]\\.events\\[0\\]: expected one of job_failed`),
    );
  });
});

describe('supply-sync notify report', () => {
  it('sends the report of the last 24 hours now, with the books written and what waits, and prints it', async () => {
    const file = join(tmp.dir, 'report.yaml');
    const stateFile = join(tmp.dir, 'report-state.db');
    writeFileSync(
      file,
      `api:
  sandbox: embedded
state:
  path: ${stateFile}
timezone: Asia/Jerusalem
connectors:
  books:
    type: hashavshevet
    import_dir: ${join(tmp.dir, 'imports')}
jobs:
  journal:
    flow: journal-export
    connector: books
notifications:
  instance: office
  channels:
    accountant:
      type: email
      host: 127.0.0.1
      port: ${smtp.port}
      username: ${SMTP_USER}
      password_file: smtp-password
      ca_file: ${ca.certFile}
      from: supply-sync@example.com
      to: [accountant@example.com]
  daily_report:
    at: "07:00"
    channels: [accountant]
`,
    );
    const state = openStateStore({ file: stateFile, clock: systemClock });
    const run = state.runs.start('journal', 'schedule');
    state.runs.finish(run, 'ok', { lines_exported: 3 }, null);
    noteWrittenBatch(state.kv, 'books', 'b1', {
      at: Date.now(),
      location: 'MOVEIN-b1.DOC',
      references: ['INV-2001', 'INV-2002'],
      rows: 3,
      debits: { ILS: '12500.40' },
    });
    state.close();
    const before = smtp.mails.length;
    const result = await runCli(['notify', 'report', '--now', '--config', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(smtp.mails).toHaveLength(before + 1);
    const mail = smtp.mails.at(-1)!;
    expect(mail.parsed.subject).toMatch(/^\[supply-sync office\] Daily report /);
    expect(mail.parsed.text).toContain(
      '  - Written to books: 2 document(s), 3 line(s), total ILS 12,500.40\n' +
        '  - Documents: INV-2001, INV-2002\n' +
        '  - Batches (files) written: MOVEIN-b1.DOC',
    );
    // What it sent is printed, with the server's answer.
    expect(result.stdout).toContain('Written to books: 2 document(s), 3 line(s), total ILS 12,500.40');
    expect(result.stdout).toMatch(/^OK {3}accountant: 250 queued as m\d+$/m);
    expect(result.stdout + result.stderr + mail.raw).not.toContain(SMTP_PASSWORD);
  });
});
