/**
 * Several office processes sharing one set of companies on PostgreSQL, as an accounting office would run them on two
 * or three machines: the compiled CLI's `run` on one office config, each process an instance named through
 * SUPPLY_SYNC_HA_INSTANCE with a state file of its own for its office queue. Each company keeps its state in a
 * database of its own (its lease and fence are there); the office's own database holds who is alive.
 *
 * What must hold, read from the companies' databases and the books, not from the instances' word:
 * - every company is led by exactly one live instance, and the companies are shared out fairly (2 instances: 3 + 3;
 *   3 instances: 2 + 2 + 2): an instance that joins takes its share;
 * - an instance killed with SIGKILL, or frozen with SIGSTOP for longer than the lease, has its companies led by the
 *   others within the failover bound (lease + poll, plus the time to notice it gone, one poll); a frozen one that
 *   wakes takes its share back;
 * - through all of it, every approved journal line of every company reaches that company's own books exactly once
 *   (read with the tests' reader of the published Hashavshevet layout) and is marked exported;
 * - the office's morning report reaches the real SMTP test server once, however many instances run: the instance
 *   that claimed the day is killed before it could send it (the SMTP server is down until then), and another takes
 *   the day over and sends it with the claim's Message-ID; no other sends it again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { killAndWait, type CliChild } from '../crash/harness/child.js';
import type { ReadoutLine } from '../flows/journal-export/harness.js';
import { expectBooksMatchLines, hashavshevetTotals } from '../flows/journal-export/targets.js';
import {
  companyVariable,
  createSharedCompanies,
  leaseHolders,
  sharedOfficeYaml,
  startOfficeInstance,
  type SharedCompany,
} from '../ha/support/office-instances.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { runCli } from '../cli/run-cli.js';
import { stableMessageId } from '../../src/notify/index.js';
import { officeMailBlock } from '../notify/office-mail.js';
import {
  makeTestCa,
  SMTP_PASSWORD,
  startSmtpReceiver,
  type ReceivedMail,
  type SmtpReceiver,
} from '../notify/receivers.js';

const COMPANIES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
const LEASE_MS = 2_000;
const POLL_MS = 250;
/** lease + poll for the company's lease, one poll more for the members' table to show the instance gone. */
const BOUND_MS = LEASE_MS + 2 * POLL_MS;
// The bound runs from the death to the lease taken in the database; on a loaded 2-core machine either process's
// timers can fire late. Not a speed claim.
const SLACK_MS = 2_500;

const probe = await postgresProbe();
const ca = makeTestCa('Office Instances CA');
let smtp: SmtpReceiver;
/** The report's time: midnight UTC, so that it is due as soon as an instance starts. */
const reportTime = '00:00';
/** The SMTP test server's port: the server is down until the report's first sender has been killed. */
let smtpPort = 0;

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-instances-'));
const officeFile = join(dir, 'office.yaml');
let sandbox: RunningSandbox;
let officeDb: TempDatabase;
let companies = new Map<string, SharedCompany>();
const approved = new Map<string, Set<string>>(COMPANIES.map((company) => [company, new Set<string>()]));
const instances = new Map<string, CliChild>();
const urls = new Map<string, string>();

const shared = (company: string): SharedCompany => companies.get(company) as SharedCompany;

function instanceEnv(name: string): Record<string, string> {
  return {
    SUPPLY_SYNC_HA_INSTANCE: name,
    OFFICE_STATE: join(dir, name, 'office.db'),
    OFFICE_DB: officeDb.url,
    SMTP_PASSWORD,
    ...Object.fromEntries(
      [...companies].flatMap(([company, { db, key }]) => [
        [companyVariable('DB', company), db.url],
        [companyVariable('KEY', company), key],
      ]),
    ),
  };
}

const startInstance = (name: string): Promise<void> =>
  startOfficeInstance(officeFile, name, instanceEnv(name), { instances, urls });

interface OfficeRow {
  company: string;
  runsOn?: { instance: string | null; here: boolean };
}

/** What an instance's office page says runs where, as `company: instance (here)`. */
async function officeView(name: string): Promise<string[]> {
  const response = await fetch(`${urls.get(name)}/status`, { headers: { accept: 'application/json' } });
  const { companies } = (await response.json()) as { companies: OfficeRow[] };
  return companies
    .map(
      (row) => `${row.company}: ${row.runsOn?.instance ?? '-'}${row.runsOn?.here === true ? ' (here)' : ''}`,
    )
    .sort();
}

const holders = (): Promise<Map<string, string | undefined>> => leaseHolders(companies);

function shares(held: ReadonlyMap<string, string | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const holder of held.values()) if (holder !== undefined) out[holder] = (out[holder] ?? 0) + 1;
  return out;
}

/** Polls the leases until every company is led and the shares are `expected`; returns how long it took. */
async function settles(expected: Record<string, number>, limitMs: number): Promise<number> {
  const started = performance.now();
  let last = new Map<string, string | undefined>();
  while (performance.now() - started < limitMs) {
    last = await holders();
    const everyLed = [...last.values()].every((holder) => holder !== undefined);
    if (everyLed && JSON.stringify(sortKeys(shares(last))) === JSON.stringify(sortKeys(expected))) {
      return performance.now() - started;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const output = [...instances].map(
    ([name, child]) =>
      `--- ${name}:\n${child
        .output()
        .split('\n')
        .filter((l) => /elected|handed|lost|assigned|hand/.test(l))
        .join('\n')}`,
  );
  throw new Error(
    `not settled to ${JSON.stringify(expected)} within ${limitMs} ms: ${JSON.stringify([...last])}\n${output.join('\n')}`,
  );
}

function sortKeys(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The sandbox's other users: more lines approved in every company, remembered to check the books against. */
async function approveMore(count: number): Promise<void> {
  for (const company of COMPANIES) {
    await sandbox.control.action('approve_journal_lines', { count }, shared(company).account);
    for (const line of await linesOf(company)) {
      if (line.status === 'approved_for_export') approved.get(company)?.add(line.id);
    }
  }
}

async function linesOf(company: string): Promise<ReadoutLine[]> {
  const readout = await sandbox.control.state(shared(company).account);
  return Object.values(readout['journalLines'] as Record<string, ReadoutLine>);
}

/** Each company's journal run once more through the CLI (queued for whichever instance leads it). */
async function exportAll(via: string): Promise<void> {
  await Promise.all(
    COMPANIES.map(async (company) => {
      const result = await runCli(
        ['--config', officeFile, '--company', company, 'sync', 'journal'],
        instanceEnv(via),
      );
      expect(result.code, `${company}: ${result.stdout}${result.stderr}`).toBe(0);
    }),
  );
}

const officeReports = (): ReceivedMail[] =>
  (smtp?.mails ?? []).filter((mail) => mail.parsed.subject?.includes('Office report') === true);

interface DayClaim {
  duty: string;
  instance: string;
  token: string;
  done: boolean;
}

async function dayClaims(): Promise<DayClaim[]> {
  const { rows } = await withClient(officeDb.url, (client) =>
    client
      .query<DayClaim>(
        'SELECT duty, instance, token, done_at IS NOT NULL AS done FROM supply_sync_office_duties ORDER BY duty',
      )
      .catch(() => ({ rows: [] as DayClaim[] })),
  );
  return rows;
}

/** Polls the office's database until `condition` holds of the days' claims; returns them. */
async function claimsWhen(what: string, condition: (claims: DayClaim[]) => boolean): Promise<DayClaim[]> {
  const guard = performance.now() + 30_000;
  for (;;) {
    const claims = await dayClaims();
    if (condition(claims)) return claims;
    if (performance.now() > guard) {
      throw new Error(
        `not within 30 s: ${what}: ${JSON.stringify(claims)}, ${officeReports().length} mail(s)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

beforeAll(async () => {
  if (!probe.available) return;
  sandbox = await startSandbox({ createDomain });
  // The port is taken, then left free: the instance that claims the day cannot send the report.
  const reserved = await startSmtpReceiver(ca);
  smtpPort = reserved.port;
  await reserved.close();
  officeDb = await createTempDatabase();
  companies = await createSharedCompanies(sandbox, dir, COMPANIES);
  const office = sharedOfficeYaml(
    sandbox.baseUrl,
    { leaseMs: LEASE_MS, pollMs: POLL_MS },
    {
      companies: ['  report:', `    at: "${reportTime}"`, '    channels: [office]'],
      office: officeMailBlock({ port: smtpPort } as SmtpReceiver, ca, 'office', 'partners@example.com'),
    },
  ).replace("schedule: '30 2 * * *'", "schedule: '* * * * *'");
  writeFileSync(officeFile, office);
  await approveMore(4);
}, 60_000);

afterAll(async () => {
  await Promise.all([...instances.values()].map((child) => killAndWait(child)));
  await sandbox?.close();
  await smtp?.close();
  for (const db of [officeDb, ...[...companies.values()].map((each) => each.db)])
    await db?.drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!probe.available)(
  `office instances sharing companies on PostgreSQL${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    it('shares the companies fairly, moves a killed or frozen instance’s within the bound, and exports every line once', async () => {
      await startInstance('east');
      await startInstance('west');
      const held = await holders();
      await settles({ east: 3, west: 3 }, 30_000);
      // Each instance's office page names where every company runs, and marks its own (a standby's view of who
      // leads is refreshed at its next poll).
      const seen = [...(await holders())].map(([company, holder]) => [company, holder as string] as const);
      for (const name of ['east', 'west']) {
        const expected = seen
          .map(([company, holder]) => `${company}: ${holder}${holder === name ? ' (here)' : ''}`)
          .sort();
        let view: string[] = [];
        for (let round = 0; round < 40; round += 1) {
          view = await officeView(name);
          if (JSON.stringify(view) === JSON.stringify(expected)) break;
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        }
        expect(view, name).toEqual(expected);
      }
      // Both instances are ready: a company another instance runs is not a company that is down.
      for (const name of ['east', 'west'])
        expect((await fetch(`${urls.get(name)}/readyz`)).status, name).toBe(200);
      expect(held.size).toBe(COMPANIES.length);

      await approveMore(3);
      await startInstance('north');
      await settles({ east: 2, west: 2, north: 2 }, 30_000);
      await exportAll('east');
      // The day's report is claimed by one instance, which cannot send it: the SMTP server is down.
      const [claimed] = await claimsWhen('the day claimed', (claims) => claims.length === 1);
      const sender = (claimed as DayClaim).instance;
      expect(claimed?.done).toBe(false);

      // SIGKILL of the report's claimant before it could send: its two companies go to the others, who now hold
      // three each, and one of them takes the day over and sends the report, once, with the claim's Message-ID.
      await approveMore(3);
      const [stayer, sleeper] = ['east', 'west', 'north'].filter((name) => name !== sender) as [
        string,
        string,
      ];
      const killed = instances.get(sender) as CliChild;
      killed.kill('SIGKILL');
      await killed.exited;
      // Up again at once: the others can take the day over only once the killed one's row has expired (a lease).
      smtp = await startSmtpReceiver(ca, smtpPort);
      const afterKill = await settles({ [stayer]: 3, [sleeper]: 3 }, BOUND_MS + SLACK_MS + 10_000);
      expect(afterKill, 'companies of the killed instance led by the others').toBeLessThan(
        BOUND_MS + SLACK_MS,
      );
      const [sent] = await claimsWhen('the day taken over and sent', (claims) => claims[0]?.done === true);
      expect(sent?.instance).not.toBe(sender);
      expect(sent?.token).toBe(claimed?.token);
      const reportMessageId = stableMessageId(sent?.duty ?? '', 'office', sent?.token ?? '');
      expect(officeReports().map((mail) => mail.parsed.messageId)).toEqual([reportMessageId]);

      // SIGSTOP longer than the lease: one instance leads every company; woken, the other steps down and takes its
      // share back.
      await approveMore(3);
      const frozen = instances.get(sleeper) as CliChild;
      frozen.kill('SIGSTOP');
      let afterFreeze = Number.NaN;
      try {
        afterFreeze = await settles({ [stayer]: 6 }, BOUND_MS + SLACK_MS + 10_000);
        expect(afterFreeze, 'companies of the frozen instance led by the other').toBeLessThan(
          BOUND_MS + SLACK_MS,
        );
        await approveMore(3);
        await exportAll(stayer);
      } finally {
        frozen.kill('SIGCONT');
      }
      await settles({ [stayer]: 3, [sleeper]: 3 }, 30_000);
      expect(frozen.output()).toMatch(/leadership lost/);
      console.log(
        `office instances: the killed instance's companies led again after ${Math.round(afterKill)} ms, the ` +
          `frozen one's after ${Math.round(afterFreeze)} ms (bound ${BOUND_MS} ms + ${SLACK_MS} ms slack)`,
      );

      // Every line approved along the way is in its company's own books once, and marked exported.
      await exportAll(sleeper);
      // Both survivors have passed their report checks many times since (every 200 ms): still one report for the
      // day (a second day's would be one of its own, should the test cross midnight UTC).
      expect(officeReports().map((mail) => mail.parsed.messageId)).toEqual(
        (await dayClaims()).map((claim) => stableMessageId(claim.duty, 'office', claim.token)),
      );
      for (const company of COMPANIES) {
        const lines = await linesOf(company);
        const ids = approved.get(company) as Set<string>;
        const exported = lines.filter((line) => ids.has(line.id) && line.status === 'exported');
        expect(exported.map((line) => line.id).sort(), company).toEqual([...ids].sort());
        expectBooksMatchLines(hashavshevetTotals(shared(company).books), exported, {
          references: 'sequence',
        });
      }
    }, 240_000);
  },
);
