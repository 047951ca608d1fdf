/**
 * The office report when several office processes share the office's PostgreSQL database: the office here runs in
 * this process against a real database and the real SMTP test server; the other office process is a real
 * Membership session of another instance, as another process's would be. What must hold: the office sends nothing
 * while the other live instance holds the day; once that instance is gone, the office takes the day over and sends
 * the report with the claim's Message-ID (the one the other would have used); a report queued here that another
 * instance took over while this one was away is withdrawn, not sent a second time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOfficeToRun } from '../../src/config/index.js';
import { buildPluginRegistry, runOffice, type OfficeDaemon } from '../../src/daemon/index.js';
import { haConfigSchema, haSettings, Membership } from '../../src/ha/index.js';
import { reportDue, stableMessageId } from '../../src/notify/index.js';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock, type Clock } from '../../src/shared/clock.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { journalOfficeYaml } from '../support/office.js';
import { mailedCompanyFile, officeMailBlock } from './office-mail.js';
import { makeTestCa, SMTP_PASSWORD, startSmtpReceiver, type SmtpReceiver } from './receivers.js';

const probe = await postgresProbe();
const GUARD_MS = 30_000;
const DAY_MS = 24 * 60 * 60_000;
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-report-claims-'));
const ca = makeTestCa('Office Report Claims CA');
const registry = buildPluginRegistry();
/** Two minutes ago, UTC: the report is due as soon as the office starts. */
const reportAt = new Date(Date.now() - 120_000);
const at = [reportAt.getUTCHours(), reportAt.getUTCMinutes()]
  .map((n) => String(n).padStart(2, '0'))
  .join(':');
let ahead = 0;
const clock: Clock = { ...systemClock, now: () => Date.now() + ahead };
const logLines: string[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });

let sandbox: RunningSandbox;
let smtp: SmtpReceiver;
let officeDb: TempDatabase;
/** The company's own database: on an office with a database, each company has one. */
let companyDb: TempDatabase;
let office: OfficeDaemon | undefined;
const others: Membership[] = [];

beforeAll(async () => {
  if (!probe.available) return;
  sandbox = await startSandbox({ createDomain });
  smtp = await startSmtpReceiver(ca);
  officeDb = await createTempDatabase();
  companyDb = await createTempDatabase();
});

afterAll(async () => {
  await office?.stop(10_000);
  await Promise.all(others.map((other) => other.stop()));
  await smtp?.close();
  await sandbox?.close();
  await officeDb?.drop();
  await companyDb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Another office process's instance, live in the office's database (it beats every 250 ms until stopped). */
async function otherInstance(instance: string): Promise<Membership> {
  const settings = haSettings(haConfigSchema.parse({ instance, lease: 2_000, poll_interval: 250 }));
  const other = new Membership({ url: officeDb.url, settings, log: logger, onChange: () => undefined });
  others.push(other);
  await other.start();
  expect(other.lastError()).toBeNull();
  return other;
}

const reportKey = (): string => `office_report:${reportDue(clock.now(), at, 'UTC').day}`;

async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const guard = Date.now() + GUARD_MS;
  while (!(await condition())) {
    if (Date.now() > guard) throw new Error(`guard passed waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const logged = (message: string, day: string): boolean =>
  logLines.some((line) => line.includes(message) && line.includes(`"day":"${day}"`));

async function startOffice(pollInterval?: string): Promise<OfficeDaemon> {
  const company = await sandbox.control.createAccount({ type: 'buyer', name: 'north ltd', plan: 'Pro' });
  mkdirSync(join(dir, 'companies.d'), { recursive: true });
  writeFileSync(
    join(dir, 'companies.d', 'north.yaml'),
    `${mailedCompanyFile(company.key, 'north', 'office')}state:\n  url: ${companyDb.url}\n`,
  );
  const officeLines = [
    `  url: ${officeDb.url}`,
    'timezone: UTC',
    'server:',
    '  port: 0',
    'companies:',
    '  dir: companies.d',
    '  report:',
    `    at: "${at}"`,
    '    channels: [office]',
    'ha:',
    '  instance: here',
    ...officeMailBlock(smtp, ca, 'office', 'partners@example.com').map((line) =>
      pollInterval !== undefined && line.startsWith('  poll_interval:')
        ? `  poll_interval: ${pollInterval}`
        : line,
    ),
  ];
  writeFileSync(join(dir, 'office.yaml'), journalOfficeYaml(sandbox.baseUrl, officeLines));
  const set = loadOfficeToRun(join(dir, 'office.yaml'), { registry, env: { SMTP_PASSWORD } });
  if (set.kind !== 'office') throw new Error('expected an office');
  return runOffice({ office: set.office, registry, catchUp: false, env: { SMTP_PASSWORD }, clock, logger });
}

describe.skipIf(!probe.available)(
  `the office report claimed in the office's database${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    it("leaves the day to a live instance that holds it, and sends it with that claim's Message-ID once it is gone", async () => {
      const key = reportKey();
      const day = key.slice('office_report:'.length);
      const other = await otherInstance('there');
      const claim = await other.duties.claim(key);
      if (!claim.held) throw new Error('the other instance could not claim the day');
      office = await startOffice();
      await until('the office to leave the report to the other instance', () =>
        logged('another office process sends it', day),
      );
      expect(smtp.mails).toHaveLength(0);

      // The other instance leaves without having sent it: the office takes the day over.
      await other.stop();
      await until('the office report', () => smtp.mails.length > 0);
      // Sent: the office records the day done in the office's database, under its own name.
      const doneBy = async (): Promise<unknown[]> =>
        (
          await withClient(officeDb.url, (client) =>
            client.query(
              'SELECT instance FROM supply_sync_office_duties WHERE duty = $1 AND done_at IS NOT NULL',
              [key],
            ),
          )
        ).rows;
      await until('the day recorded done', async () => (await doneBy()).length > 0);
      expect(await doneBy()).toEqual([{ instance: 'here' }]);
      // Counted once the day is done: nothing more goes for it.
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0]?.parsed.messageId).toBe(stableMessageId(key, 'office', claim.token));
    });

    it('withdraws a queued report that another instance took over while this one was away', async () => {
      // The SMTP server is gone: the next day's report stays queued here, unsent.
      await smtp.close();
      ahead += DAY_MS;
      const key = reportKey();
      const day = key.slice('office_report:'.length);
      await until('the next report queued', () => logged('office report queued', day));
      // As if this process had been frozen for longer than a lease: another instance took the day over.
      await otherInstance('elsewhere');
      await withClient(officeDb.url, (client) =>
        client.query(`UPDATE supply_sync_office_duties SET instance = 'elsewhere' WHERE duty = $1`, [key]),
      );
      await until('the queued report withdrawn', () =>
        logged('took the day over while this one was away', day),
      );
      const state = new Database(join(dir, 'state', 'office.db'), { readonly: true, fileMustExist: true });
      try {
        const left = state.prepare('SELECT status FROM notifications WHERE dedup_key = ?').all(key);
        expect(left).toEqual([]);
      } finally {
        state.close();
      }
      const { rows } = await withClient(officeDb.url, (client) =>
        client.query('SELECT instance, done_at FROM supply_sync_office_duties WHERE duty = $1', [key]),
      );
      expect(rows).toEqual([{ instance: 'elsewhere', done_at: null }]);
    });

    it('records the day done as soon as its report went out, not a poll later', async () => {
      await office?.stop(10_000);
      smtp = await startSmtpReceiver(ca);
      ahead += DAY_MS;
      const key = reportKey();
      // One pass at the start, the next an hour later: only the send itself can lead to the record.
      office = await startOffice('1h');
      await until('the office report', () => smtp.mails.length > 0);
      await until('the day recorded done', async () => {
        const { rows } = await withClient(officeDb.url, (client) =>
          client.query('SELECT 1 FROM supply_sync_office_duties WHERE duty = $1 AND done_at IS NOT NULL', [
            key,
          ]),
        );
        return rows.length > 0;
      });
      expect(smtp.mails).toHaveLength(1);
    });
  },
);
