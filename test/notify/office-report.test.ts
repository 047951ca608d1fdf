/**
 * The office's morning report through a real SMTP server (smtp-server, STARTTLS, login; parsed by mailparser): one
 * message to the office file's own recipients with a row per company, read against what the companies did: north
 * exported its approved lines (their count and ILS total from the sandbox's own lines), revoked's run failed (the API
 * refused its key), idle did not run, and broken is not running (its file has a mistake). The companies' own
 * recipients get no report; it is queued once for the day however many passes follow.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOfficeToRun } from '../../src/config/index.js';
import { buildPluginRegistry, runOffice, type OfficeDaemon } from '../../src/daemon/index.js';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock, type Clock } from '../../src/shared/clock.js';
import type { ReadoutLine } from '../flows/journal-export/harness.js';
import { debitTotal } from '../flows/journal-export/targets.js';
import { journalOfficeYaml } from '../support/office.js';
import { mailedCompanyFile, officeMailBlock } from './office-mail.js';
import { makeTestCa, SMTP_PASSWORD, startSmtpReceiver, type SmtpReceiver } from './receivers.js';

const GUARD_MS = 30_000;
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-report-'));
const ca = makeTestCa('Office Report CA');
const registry = buildPluginRegistry();
let sandbox: RunningSandbox;
let smtp: SmtpReceiver;
let office: OfficeDaemon | undefined;
/** The companies' keys, for the office files the reload writes. */
let keys: { north: string; idle: string } | undefined;

/** The report's time: two minutes from now, UTC, so that the runs below fall inside its 24 hours. */
const reportAt = new Date(Date.now() + 120_000);
const at = `${String(reportAt.getUTCHours()).padStart(2, '0')}:${String(reportAt.getUTCMinutes()).padStart(2, '0')}`;
/** The office's report clock: the system's until the test moves it past the report's time. */
let ahead = 0;
const clock: Clock = { ...systemClock, now: () => Date.now() + ahead };

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

function writeOfficeFiles(northKey: string, idleKey: string, to = 'partners@example.com'): void {
  const notifications = officeMailBlock(smtp, ca, 'office', to);
  const office = [
    'timezone: UTC',
    'server:',
    '  port: 0',
    'log:',
    '  level: fatal',
    'companies:',
    '  dir: companies.d',
    '  report:',
    `    at: "${at}"`,
    '    channels: [office]',
  ];
  writeFileSync(join(dir, 'office.yaml'), journalOfficeYaml(sandbox.baseUrl, [...office, ...notifications]));
  mkdirSync(join(dir, 'companies.d'), { recursive: true });
  const company = (key: string, name: string): string => mailedCompanyFile(key, name, 'office');
  writeFileSync(join(dir, 'companies.d', 'north.yaml'), company(northKey, 'north'));
  writeFileSync(join(dir, 'companies.d', 'idle.yaml'), company(idleKey, 'idle'));
  writeFileSync(
    join(dir, 'companies.d', 'revoked.yaml'),
    company('svc_test_not_a_key_of_this_sandbox_000000', 'revoked'),
  );
  writeFileSync(join(dir, 'companies.d', 'broken.yaml'), 'connectors:\n  books:\n    import_dir: 42\n');
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const guard = Date.now() + GUARD_MS;
  while (!condition()) {
    if (Date.now() > guard) throw new Error(`guard passed waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function rowOf(text: string, company: string): string[] {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${company} `));
  if (line === undefined) throw new Error(`no row for ${company} in:\n${text}`);
  return line.split(/\s{2,}/);
}

describe("the office's morning report", () => {
  it('mails one table of every company to the office, read against what each company did', async () => {
    const north = await sandbox.control.createAccount({ type: 'buyer', name: 'north ltd', plan: 'Pro' });
    const idle = await sandbox.control.createAccount({ type: 'buyer', name: 'idle ltd', plan: 'Pro' });
    await sandbox.control.action('approve_journal_lines', { count: 6 }, north.id);
    writeOfficeFiles(north.key, idle.key);
    const set = loadOfficeToRun(join(dir, 'office.yaml'), { registry, env: { SMTP_PASSWORD } });
    if (set.kind !== 'office') throw new Error('expected an office');
    office = await runOffice({ office: set.office, registry, catchUp: false, env: { SMTP_PASSWORD }, clock });
    const approved = Object.values(
      (await sandbox.control.state(north.id))['journalLines'] as Record<string, ReadoutLine>,
    ).filter((line) => line.status === 'approved_for_export');
    await office.company('north')?.runNow('journal', 'operator');
    await office.company('revoked')?.runNow('journal', 'operator');
    // Not yet its time: nothing is sent.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.mails).toHaveLength(0);

    // The report clock moves to half a minute past the report's time (the same day whatever the hour now).
    ahead = Math.floor(reportAt.getTime() / 60_000) * 60_000 + 30_000 - Date.now();
    await until(() => smtp.mails.length > 0, 'the office report');
    // Later passes of the same day queue nothing more.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail?.parsed.to).toMatchObject({ text: 'partners@example.com' });
    // The report's time with its zone, as the body names it (the office file says `timezone: UTC`).
    expect(mail?.parsed.subject).toMatch(
      /^\[supply-sync books-office\] Office report \d{1,2} \w{3} \d{4}, \d{2}:\d{2} \(UTC\): 4 companies: /,
    );
    const text = mail?.parsed.text ?? '';
    expect(text).toContain('1 not running, 1 with failed runs, 1 not yet run');

    // North's row: the lines it exported and their debit total, from the sandbox's own lines.
    const exported = Object.values(
      (await sandbox.control.state(north.id))['journalLines'] as Record<string, ReadoutLine>,
    ).filter((line) => approved.some((one) => one.id === line.id) && line.status === 'exported');
    expect(exported).toHaveLength(approved.length);
    const debits = debitTotal(exported);
    const [, lines, ils, , , runs, failed, state] = rowOf(text, 'north');
    expect([lines, runs, failed, state]).toEqual([String(exported.length), '1', '0', 'ok']);
    expect(ils?.replace(/[ILS,\s]/g, '')).toBe(debits);
    expect(rowOf(text, 'revoked').slice(5)).toEqual(['1', '1', '1 run(s) failed']);
    expect(rowOf(text, 'idle').slice(5)).toEqual(['0', '0', 'not yet run']);
    expect(rowOf(text, 'broken').at(-1)).toMatch(/^not running: /);
    // Worst first: not running, failed runs, not yet run, then the rest.
    const order = ['broken', 'revoked', 'idle', 'north'].map((company) => text.indexOf(`\n${company} `));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(mail?.parsed.html).toContain('<table');
    expect(mail?.raw).not.toContain(SMTP_PASSWORD);
    expect(mail?.raw).not.toContain(north.key);
    keys = { north: north.key, idle: idle.key };
  });

  it("follows a reload of the office file: new recipients get the next day's report", async () => {
    const running = office;
    if (running === undefined || keys === undefined)
      throw new Error('the office of the test above is not running');
    expect((await running.reload('operator')).report).toEqual({ change: 'unchanged' });
    writeOfficeFiles(keys.north, keys.idle, 'controller@example.com');
    const reloaded = await running.reload('operator');
    expect(reloaded.report).toEqual({ change: 'reloaded' });
    // The companies name their own recipients on the channel, so only the report changed; broken's file still has
    // its mistake.
    expect(reloaded.unchanged).toEqual(['idle', 'north', 'revoked']);
    expect(reloaded.failed.map((problem) => problem.company)).toEqual(['broken']);
    // The next day's report, past its time, goes to the new recipients only.
    ahead += 24 * 60 * 60_000;
    await until(() => smtp.mails.length > 1, "the next day's office report");
    expect(smtp.mails).toHaveLength(2);
    expect(smtp.mails[1]?.parsed.to).toMatchObject({ text: 'controller@example.com' });
  });
});
