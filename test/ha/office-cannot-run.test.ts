/**
 * A company whose config fails on one office process only (here: its API key is an environment variable that one
 * machine lacks), with two office processes sharing the companies on PostgreSQL: the compiled CLI's `run`, as on two
 * machines.
 *
 * The plain assignment of these three companies to `east` and `west` gives `bravo` to `east` (checked below), so
 * without the `cannot run` a process publishes with its heartbeat, `east` would be told to run a company it cannot
 * start, and `west` would take it only after it had stayed free for a whole lease, and then hand it back as not its
 * own. What must hold, read from the companies' databases and the processes' own words:
 * - `bravo` is led by `west`, and never handed over by it while the two run;
 * - the other two companies are led by `east`, so the shares stay fair;
 * - `east`'s office page names `bravo` as a company it cannot run, and says `bravo` runs on `west`; `east` is not
 *   ready (its machine needs the fix), `west` is;
 * - `bravo`'s journal lines reach its own books through `west`.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignCompanies } from '../../src/daemon/office/company-assignment.js';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../cli/run-cli.js';
import { killAndWait, type CliChild } from '../crash/harness/child.js';
import {
  companyVariable,
  createSharedCompanies,
  leaseHolders,
  sharedOfficeYaml,
  startOfficeInstance,
  type SharedCompany,
} from './support/office-instances.js';
import { createTempDatabase, postgresProbe, waitFor, type TempDatabase } from './support/postgres.js';

const COMPANIES = ['alpha', 'bravo', 'charlie'];
const FAILING = 'bravo';
const LEASE_MS = 2_000;
const POLL_MS = 250;

const probe = await postgresProbe();
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-cannot-run-'));
const officeFile = join(dir, 'office.yaml');
let sandbox: RunningSandbox;
let officeDb: TempDatabase;
let companies = new Map<string, SharedCompany>();
const instances = new Map<string, CliChild>();
const urls = new Map<string, string>();

const company = (name: string): SharedCompany => companies.get(name) as SharedCompany;

/** `east` lacks the failing company's key: its config cannot be read there. */
function instanceEnv(name: string): Record<string, string> {
  const env: Record<string, string> = {
    SUPPLY_SYNC_HA_INSTANCE: name,
    OFFICE_STATE: join(dir, name, 'office.db'),
    OFFICE_DB: officeDb.url,
  };
  for (const [each, { db, key }] of companies) {
    env[companyVariable('DB', each)] = db.url;
    if (name !== 'east' || each !== FAILING) env[companyVariable('KEY', each)] = key;
  }
  return env;
}

const startInstance = (name: string): Promise<void> =>
  startOfficeInstance(officeFile, name, instanceEnv(name), { instances, urls });

/** Who holds each company's lease now, as `company: instance`. */
async function holders(): Promise<Record<string, string>> {
  const held = [...(await leaseHolders(companies))].filter(([, holder]) => holder !== undefined);
  return Object.fromEntries(held) as Record<string, string>;
}

interface OfficeStatus {
  instances?: { members: string[]; cannotRun: Record<string, string[]> };
  companies: Array<{ company: string; state: string; runsOn?: { instance: string | null } }>;
}

async function journalLines(name: string): Promise<Array<{ id: string; status: string }>> {
  const readout = await sandbox.control.state(company(name).account);
  return Object.values(readout['journalLines'] as Record<string, { id: string; status: string }>);
}

async function officeStatus(name: string): Promise<OfficeStatus> {
  const response = await fetch(`${urls.get(name)}/status`, { headers: { accept: 'application/json' } });
  return (await response.json()) as OfficeStatus;
}

beforeAll(async () => {
  if (!probe.available) return;
  sandbox = await startSandbox({ createDomain });
  officeDb = await createTempDatabase();
  companies = await createSharedCompanies(sandbox, dir, COMPANIES);
  writeFileSync(officeFile, sharedOfficeYaml(sandbox.baseUrl, { leaseMs: LEASE_MS, pollMs: POLL_MS }));
}, 60_000);

afterAll(async () => {
  await Promise.all([...instances.values()].map((child) => killAndWait(child)));
  await sandbox?.close();
  for (const db of [officeDb, ...[...companies.values()].map((each) => each.db)])
    await db?.drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!probe.available)(
  `a company one office process cannot run${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    it('runs on the process that can, named on the other’s page, and is never handed back and forth', async () => {
      // Without the processes' word, the assignment would send the failing company to east.
      expect(assignCompanies(COMPANIES, ['east', 'west']).get(FAILING)).toBe('east');

      await startInstance('east');
      await startInstance('west');
      const expected = { alpha: 'east', bravo: 'west', charlie: 'east' };
      await waitFor(
        `leases held as ${JSON.stringify(expected)}`,
        async () => JSON.stringify(await holders()) === JSON.stringify(expected),
        30_000,
      );

      // East's page: bravo failed here, east cannot run it, west runs it.
      await waitFor(
        'east naming bravo as run by west',
        async () => {
          const status = await officeStatus('east');
          return status.companies.find((row) => row.company === FAILING)?.runsOn?.instance === 'west';
        },
        10_000,
      );
      const status = await officeStatus('east');
      expect(status.instances?.cannotRun).toEqual({ east: [FAILING] });
      expect(status.companies.find((row) => row.company === FAILING)?.state).toBe('failed');
      const page = await (
        await fetch(`${urls.get('east')}/status`, { headers: { accept: 'text/html' } })
      ).text();
      expect(page).toContain('east (this one) (cannot run bravo)');
      // East needs its machine fixed (it cannot serve bravo's webhooks); west runs everything it is given.
      expect((await fetch(`${urls.get('east')}/readyz`)).status).toBe(503);
      expect((await fetch(`${urls.get('west')}/readyz`)).status).toBe(200);

      // Three more leases of both running: the shares hold, and no lease was handed over.
      const watchedUntil = Date.now() + 3 * LEASE_MS;
      while (Date.now() < watchedUntil) {
        expect(await holders()).toEqual(expected);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      for (const [name, child] of instances) expect(child.output(), name).not.toMatch(/lease handed over/);

      // Bravo's lines reach bravo's own books through west (the CLI queues the run for whoever leads it).
      await sandbox.control.action('approve_journal_lines', { count: 3 }, company(FAILING).account);
      const approved = (await journalLines(FAILING)).filter((line) => line.status === 'approved_for_export');
      expect(approved.length).toBeGreaterThan(0);
      const result = await runCli(
        ['--config', officeFile, '--company', FAILING, 'sync', 'journal'],
        instanceEnv('west'),
      );
      expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
      const after = new Map((await journalLines(FAILING)).map((line) => [line.id, line.status]));
      expect(approved.map((line) => after.get(line.id))).toEqual(approved.map(() => 'exported'));
      expect(readdirSync(company(FAILING).books).length).toBeGreaterThan(0);

      // On a machine that runs no office process, `status --all` says where to look instead of only "start it".
      const elsewhere = await runCli(['--config', officeFile, 'status', '--all'], instanceEnv('nowhere'));
      expect(elsewhere.stdout).toMatch(/^office: not running here: .*office processes on other machines/m);
      expect(elsewhere.stdout).toContain(`== ${FAILING}: ready`);
    }, 90_000);
  },
);
