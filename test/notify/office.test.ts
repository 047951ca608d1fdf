/**
 * Notifications in an office: each company's messages go to its own recipients, named with the company, through
 * a real SMTP server (smtp-server, STARTTLS, login) parsed by mailparser. Two client companies in one process, one
 * whose key the API refuses: its failed journal run is mailed to its accountant only, the other's successful run
 * to nobody; the office's own recipients (the default in the office file) get neither.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOfficeToRun } from '../../src/config/index.js';
import { buildPluginRegistry, runOffice, type OfficeDaemon } from '../../src/daemon/index.js';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { journalOfficeYaml } from '../support/office.js';
import { mailedCompanyFile, officeMailBlock } from './office-mail.js';
import { makeTestCa, SMTP_PASSWORD, startSmtpReceiver, type SmtpReceiver } from './receivers.js';

/** A guard on waiting for a delivery, not a measure: past it the test fails saying what had arrived. */
const GUARD_MS = 30_000;

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-notify-office-'));
const ca = makeTestCa('Office Notify CA');
const registry = buildPluginRegistry();
let sandbox: RunningSandbox;
let smtp: SmtpReceiver;
let office: OfficeDaemon | undefined;

beforeAll(async () => {
  sandbox = await startSandbox({ createDomain });
  smtp = await startSmtpReceiver(ca);
});

afterAll(async () => {
  await office?.stop(10_000);
  await smtp.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeOfficeFiles(northKey: string): void {
  const notifications = officeMailBlock(smtp, ca, 'accountant', 'office@example.com', [
    '  rules:',
    '    - events: [job_failed]',
    '      channels: [accountant]',
  ]);
  const office = ['server:', '  port: 0', 'log:', '  level: fatal', 'companies:', '  dir: companies.d'];
  writeFileSync(join(dir, 'office.yaml'), journalOfficeYaml(sandbox.baseUrl, [...office, ...notifications]));
  mkdirSync(join(dir, 'companies.d'), { recursive: true });
  const company = (key: string, name: string): string => mailedCompanyFile(key, name, 'accountant');
  writeFileSync(join(dir, 'companies.d', 'north.yaml'), company(northKey, 'north'));
  writeFileSync(
    join(dir, 'companies.d', 'revoked.yaml'),
    company('svc_test_not_a_key_of_this_sandbox_000000', 'revoked'),
  );
}

async function until(condition: () => boolean, what: () => string): Promise<void> {
  const guard = Date.now() + GUARD_MS;
  while (!condition()) {
    if (Date.now() > guard) throw new Error(`guard passed waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('notifications in an office', () => {
  it("mails a company's failure to that company's recipients only, naming the company", async () => {
    const north = await sandbox.control.createAccount({ type: 'buyer', name: 'north ltd', plan: 'Pro' });
    await sandbox.control.action('approve_journal_lines', { count: 3 }, north.id);
    writeOfficeFiles(north.key);
    const set = loadOfficeToRun(join(dir, 'office.yaml'), { registry, env: { SMTP_PASSWORD } });
    if (set.kind !== 'office') throw new Error('expected an office');
    office = await runOffice({ office: set.office, registry, catchUp: false, env: { SMTP_PASSWORD } });
    await office.company('north')?.runNow('journal', 'operator');
    await office.company('revoked')?.runNow('journal', 'operator');
    expect(office.company('north')?.env.state.runs.recent('journal')[0]?.outcome).toBe('ok');
    expect(office.company('revoked')?.env.state.runs.recent('journal')[0]?.outcome).toBe('failed');
    await until(
      () => smtp.mails.length > 0,
      () => 'the failure email',
    );
    // Both companies have stopped: whatever either would have sent has been handed over.
    await office.stop(10_000);
    office = undefined;
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail?.secure).toBe(true);
    expect(mail?.parsed.to).toMatchObject({ text: 'revoked-books@example.com' });
    expect(mail?.parsed.subject).toBe('[supply-sync books-office/revoked] Job journal failed');
    expect(mail?.parsed.text).toContain('journal');
    expect(mail?.raw).not.toContain(SMTP_PASSWORD);
  });
});
