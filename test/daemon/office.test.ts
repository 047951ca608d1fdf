/**
 * One office process for several companies (`supply-sync run` on an office config): each company's daemon with its
 * own state, key, books and webhook secret, all behind one port. Real parts: the sandbox over HTTP with a buyer
 * account per company, real SQLite state files, real Hashavshevet folders, signed webhooks over HTTP.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOfficeToRun, type OfficeConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runOffice, type OfficeDaemon } from '../../src/daemon/index.js';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { WebhookSecretStore } from '../../src/webhooks/index.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import type { ReadoutLine } from '../flows/journal-export/harness.js';
import { journalOfficeYaml } from '../support/office.js';
import { MALFORMED_TARGETS, requestRawTarget } from '../support/raw-target.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-daemon-'));
const registry = buildPluginRegistry();
const COMPANIES = ['north', 'south'] as const;
const secrets: Record<string, string> = { north: 'whsec_north_0123456789', south: 'whsec_south_0123456789' };
let sandbox: RunningSandbox;
let office: OfficeDaemon;
const accounts: Record<string, string> = {};

const books = (company: string): string => join(dir, 'companies.d', 'books', company);
const dataFiles = (company: string): string[] =>
  existsSync(books(company)) ? readdirSync(books(company)).filter((name) => /\.doc$/i.test(name)) : [];
const statePath = (company: string): string => join(dir, 'state', 'companies', company, 'state.db');

async function linesOf(company: string): Promise<ReadoutLine[]> {
  const readout = await sandbox.control.state(accounts[company]);
  return Object.values(readout['journalLines'] as Record<string, ReadoutLine>);
}

function writeOffice(keys: Record<string, string>): OfficeConfig {
  mkdirSync(join(dir, 'companies.d'), { recursive: true });
  writeFileSync(
    join(dir, 'office.yaml'),
    journalOfficeYaml(sandbox.baseUrl, [
      'server:',
      '  port: 0',
      'log:',
      '  level: fatal',
      'companies:',
      '  max_concurrent_runs: 1',
    ]),
  );
  for (const [name, key] of Object.entries(keys)) {
    writeFileSync(
      join(dir, 'companies.d', `${name}.yaml`),
      `api:\n  api_key: ${key}\nconnectors:\n  books:\n    import_dir: books/${name}\n`,
    );
  }
  // One company's file has a mistake: that company is set aside, the others run.
  writeFileSync(
    join(dir, 'companies.d', 'broken.yaml'),
    "api:\n  api_key: svc_test_x\njobs:\n  journal:\n    schedule: 'nightly'\n",
  );
  const set = loadOfficeToRun(join(dir, 'office.yaml'), { registry, env: {} });
  if (set.kind !== 'office') throw new Error('expected an office');
  return set.office;
}

/** Each company's webhook secret, kept in its own state file as `webhooks register` keeps it. */
function registerSecret(company: string): void {
  mkdirSync(join(dir, 'state', 'companies', company), { recursive: true });
  const state = openStateStore({ file: statePath(company), clock: systemClock });
  try {
    new WebhookSecretStore(state.kv, () => Date.now()).add(`ep_${company}`, secrets[company] as string);
  } finally {
    state.close();
  }
}

function signedEvent(secret: string, id: string): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id,
    type: 'journal_lines.approved_for_export',
    occurred_at: new Date().toISOString(),
    data: { object: 'journal_lines', id: 'jl_x' },
  });
  const header = signatureHeader([secret], Math.floor(Date.now() / 1000), Buffer.from(body));
  return { body, headers: { 'content-type': 'application/json', 'service-signature': header } };
}

function inboxIds(company: string): string[] {
  const state = openStateStore({ file: statePath(company), clock: systemClock, readOnly: true });
  try {
    return (
      state.db.prepare('SELECT event_id FROM inbox ORDER BY event_id').all() as { event_id: string }[]
    ).map((row) => row.event_id);
  } finally {
    state.close();
  }
}

function runsOf(company: string): { startedAt: number; endedAt: number }[] {
  const state = openStateStore({ file: statePath(company), clock: systemClock, readOnly: true });
  try {
    return state.runs
      .list({ limit: 10 })
      .map((run) => ({ startedAt: run.startedAt, endedAt: run.endedAt ?? Infinity }));
  } finally {
    state.close();
  }
}

beforeAll(async () => {
  sandbox = await startSandbox({ createDomain });
  const keys: Record<string, string> = {};
  for (const name of COMPANIES) {
    const created = await sandbox.control.createAccount({ type: 'buyer', name: `${name} ltd`, plan: 'Pro' });
    accounts[name] = created.id;
    keys[name] = created.key;
    await sandbox.control.action('approve_journal_lines', { count: 5 }, created.id);
    registerSecret(name);
  }
  // A third company whose key the API does not know (revoked, mistyped): its runs fail, the others' do not.
  keys['revoked'] = 'svc_test_not_a_key_of_this_sandbox_000000';
  office = await runOffice({ office: writeOffice(keys), registry, catchUp: false, env: {} });
});

afterAll(async () => {
  await office?.stop(10_000);
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an office of companies in one process', () => {
  it('runs every company behind one port, each under its own path', async () => {
    expect(office.companies().map((entry) => [entry.name, entry.state])).toEqual([
      ['north', 'running'],
      ['revoked', 'running'],
      ['south', 'running'],
      ['broken', 'failed'],
    ]);
    const broken = office.companies().find((entry) => entry.name === 'broken');
    expect(broken?.error).toContain(
      `${join(dir, 'companies.d', 'broken.yaml')}:5:15 jobs.journal.schedule: expected a cron`,
    );
    const status = (await (
      await fetch(`${office.url}/status`, { headers: { accept: 'application/json' } })
    ).json()) as {
      companies: { company: string; jobs: { name: string }[] }[];
    };
    // Worst first: the company that did not start, then the one whose key the API refuses (not ready).
    expect(status.companies.map((row) => row.company)).toEqual(['broken', 'revoked', 'north', 'south']);
    const north = await fetch(`${office.url}/companies/north/status`, {
      headers: { accept: 'application/json' },
    });
    expect(north.status).toBe(200);
    expect(((await north.json()) as { jobs: { name: string }[] }).jobs.map((job) => job.name)).toEqual([
      'journal',
    ]);
    expect((await fetch(`${office.url}/companies/nobody/status`)).status).toBe(404);
    expect((await fetch(`${office.url}/companies/%E0/status`)).status).toBe(404);
    for (const target of MALFORMED_TARGETS) {
      expect({ target, status: (await requestRawTarget(office.url, target)).status }).toEqual({
        target,
        status: 400,
      });
    }
    expect((await fetch(`${office.url}/healthz`)).status).toBe(200);
    // The companies' background loops wait on one clock, whose sleeps due in the same second end together.
    const loopClocks = new Set(
      ['north', 'south', 'revoked'].map((name) => office.company(name)?.env.loopClock),
    );
    expect(loopClocks.size).toBe(1);
    expect([...loopClocks][0]).not.toBe(office.company('north')?.env.clock);
    // Not ready while a company is not: one did not start, one's key is refused by the API.
    const readiness = await fetch(`${office.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(((await readiness.json()) as { status: string }).status).toBe('not_ready');
  });

  it("exports each company's journal into its own books; a company with a bad key fails alone", async () => {
    const before = { north: await linesOf('north'), south: await linesOf('south') };
    await Promise.all(
      [...COMPANIES, 'revoked'].map((name) => office.company(name)?.runNow('journal', 'operator')),
    );
    // Asked for at once, the runs went one at a time: companies.max_concurrent_runs is 1.
    const spans = [...COMPANIES, 'revoked']
      .flatMap((name) => runsOf(name))
      .sort((a, b) => a.startedAt - b.startedAt);
    expect(spans).toHaveLength(3);
    for (let i = 1; i < spans.length; i++) {
      expect(spans[i]?.startedAt).toBeGreaterThanOrEqual(spans[i - 1]?.endedAt ?? Infinity);
    }
    for (const name of COMPANIES) {
      const approved = new Set(
        before[name].filter((line) => line.status === 'approved_for_export').map((l) => l.id),
      );
      expect(approved.size).toBeGreaterThan(0);
      const after = await linesOf(name);
      expect(after.filter((line) => approved.has(line.id) && line.status === 'exported')).toHaveLength(
        approved.size,
      );
      expect(dataFiles(name).length).toBeGreaterThan(0);
    }
    expect(dataFiles('revoked')).toEqual([]);
    const rows = (await (
      await fetch(`${office.url}/status`, { headers: { accept: 'application/json' } })
    ).json()) as {
      companies: { company: string; ready: boolean; jobs: { lastOutcome: string | null }[] }[];
    };
    // Worst first: the company that did not start, then the one whose run failed; the others' last runs are ok.
    expect(rows.companies.map((row) => row.company)).toEqual(['broken', 'revoked', 'north', 'south']);
    expect(rows.companies[1]?.jobs[0]?.lastOutcome).toBe('failed');
    expect(rows.companies.slice(2).map((row) => row.jobs[0]?.lastOutcome)).toEqual(['ok', 'ok']);
  });

  it("takes a company's webhooks on its own path with its own secret only", async () => {
    const north = signedEvent(secrets['north'] as string, 'evt_office_north_1');
    const posted = await fetch(`${office.url}/companies/north/webhooks`, { method: 'POST', ...north });
    expect(posted.status).toBe(200);
    // Signed with north's secret, sent to south's path: refused, stored nowhere.
    const crossed = signedEvent(secrets['north'] as string, 'evt_office_crossed');
    const refused = await fetch(`${office.url}/companies/south/webhooks`, { method: 'POST', ...crossed });
    expect(refused.status).toBe(400);
    expect(inboxIds('north')).toContain('evt_office_north_1');
    expect(inboxIds('south')).toEqual([]);
    expect(inboxIds('north')).not.toContain('evt_office_crossed');
  });

  it('labels every company metric with its company on the office /metrics', async () => {
    const text = await (await fetch(`${office.url}/metrics`)).text();
    for (const name of ['north', 'south', 'revoked']) expect(text).toContain(`company="${name}"`);
    const help = text.split('\n').filter((line) => line.startsWith('# TYPE supply_sync_outbox_depth '));
    expect(help).toHaveLength(1);
  });

  it('takes companies added, changed and removed on a reload while the others run on', async () => {
    const revokedBefore = office.company('revoked');
    const southBefore = office.company('south');
    const west = await sandbox.control.createAccount({ type: 'buyer', name: 'west ltd', plan: 'Pro' });
    accounts['west'] = west.id;
    await sandbox.control.action('approve_journal_lines', { count: 3 }, west.id);
    const companyFile = (name: string): string => join(dir, 'companies.d', `${name}.yaml`);
    const original = (name: string): string => readFileSync(companyFile(name), 'utf8');
    // A client added; the first company by name and the broken file removed; one company's mappings and another's
    // books folder changed.
    writeFileSync(
      companyFile('west'),
      `api:\n  api_key: ${west.key}\nconnectors:\n  books:\n    import_dir: books/west\n`,
    );
    rmSync(companyFile('north'));
    rmSync(companyFile('broken'));
    writeFileSync(
      companyFile('revoked'),
      `${original('revoked')}mappings:\n  accounts:\n    '6100': '61000'\n`,
    );
    writeFileSync(companyFile('south'), original('south').replace('books/south', 'books/south-2027'));

    const result = await office.reload('test:reload');
    expect(result).toEqual({
      file: join(dir, 'office.yaml'),
      started: ['west'],
      stopped: ['broken', 'north'],
      restarted: ['south'],
      reloaded: ['revoked'],
      unchanged: [],
      refused: [],
      failed: [],
      report: { change: 'unchanged' },
    });
    expect(office.companies().map((entry) => [entry.name, entry.state])).toEqual([
      ['revoked', 'running'],
      ['south', 'running'],
      ['west', 'running'],
    ]);
    // Revoked kept its daemon (new mappings from its next run); south runs a new one with its new folder.
    expect(office.company('revoked')).toBe(revokedBefore);
    expect(office.company('south')).not.toBe(southBefore);
    expect((await fetch(`${office.url}/companies/north/status`)).status).toBe(404);
    expect((await fetch(`${office.url}/companies/south/status`)).status).toBe(200);
    expect((await fetch(`${office.url}/companies/west/status`)).status).toBe(200);
    await office.company('west')?.runNow('journal', 'operator');
    expect(dataFiles('west').length).toBeGreaterThan(0);
    // South's new lines go into its new books folder.
    await sandbox.control.action('approve_journal_lines', { count: 3 }, accounts['south']);
    await office.company('south')?.runNow('journal', 'operator');
    expect(dataFiles('south-2027').length).toBeGreaterThan(0);
  });

  it('keeps a running company as it is when its file has a mistake or would move its state', async () => {
    const companyFile = join(dir, 'companies.d', 'west.yaml');
    const original = readFileSync(companyFile, 'utf8');
    const westDaemon = office.company('west');
    try {
      writeFileSync(companyFile, `${original}jobs:\n  journal:\n    schedule: 'nightly'\n`);
      const mistaken = await office.reload('test:reload');
      expect(mistaken.refused.map((refusal) => refusal.company)).toEqual(['west']);
      expect(mistaken.refused[0]?.reason).toContain('jobs.journal.schedule');
      expect(mistaken.refused[0]?.reason).toContain('it keeps running with the config it has');
      expect(mistaken.unchanged).toEqual(['revoked', 'south']);
      expect(office.company('west')).toBe(westDaemon);

      writeFileSync(companyFile, `${original}state:\n  path: elsewhere/west.db\n`);
      const moved = await office.reload('test:reload');
      expect(moved.refused).toEqual([
        { company: 'west', reason: expect.stringContaining('state.path or state.url changed') as string },
      ]);
      expect(moved.restarted).toEqual([]);
      expect(office.company('west')).toBe(westDaemon);
    } finally {
      writeFileSync(companyFile, original);
    }
  });

  it("refuses a change to the office's own settings, changing nothing", async () => {
    const westDaemon = office.company('west');
    const officeFile = join(dir, 'office.yaml');
    const officeText = readFileSync(officeFile, 'utf8');
    try {
      writeFileSync(officeFile, officeText.replace('  level: fatal', '  level: error'));
      await expect(office.reload('test:reload')).rejects.toThrow(
        /: log\.level changed, which the office cannot apply while it runs: restart the office for that/,
      );
      writeFileSync(officeFile, officeText.replace('path: state/office.db', 'path: data/office.db'));
      await expect(office.reload('test:reload')).rejects.toThrow(/: state\.path changed, which the office/);
      // A mistake in the office's shared part: refused once, as `config validate` tells it, not as every company's.
      writeFileSync(officeFile, officeText.replace("schedule: '30 2 * * *'", "schedule: 'nightly'"));
      const broken = office.reload('test:reload');
      await expect(broken).rejects.toThrow(
        /^\S*office\.yaml:\d+:\d+ jobs\.journal\.schedule: [^\n]*\(found for every company\)\n/,
      );
      await expect(broken).rejects.toThrow(/the office keeps running with the companies it has/);
      expect(office.company('west')).toBe(westDaemon);
    } finally {
      writeFileSync(officeFile, officeText);
    }
  });

  it('stops every company and the port', async () => {
    const url = office.url;
    const { unfinished } = await office.stop(10_000);
    expect(unfinished).toEqual([]);
    expect(office.companies().every((entry) => entry.state === 'stopped')).toBe(true);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    await expect(office.reload('test:after-stop')).rejects.toThrow(
      'the office is stopping: nothing was reloaded',
    );
  });
});
