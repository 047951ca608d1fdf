/**
 * An accounting office's config run as a user would (the compiled CLI in child processes): two client companies,
 * each a buyer account created in the sandbox with its own key and world, each exporting its journal into its own
 * Hashavshevet folder with a state file of its own. What one company's commands do must never touch the other's
 * lines, books or state. The books are read with the tests' own reader of the published layout.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import type { ReadoutLine } from '../flows/journal-export/harness.js';
import { expectBooksMatchLines, hashavshevetTotals } from '../flows/journal-export/targets.js';
import { killAndWait, spawnCli } from '../crash/harness/child.js';
import { journalOfficeYaml } from '../support/office.js';
import { runCli, type CliResult } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-cli-'));
const officeFile = join(dir, 'office.yaml');
let sandbox: RunningSandbox;
const keys: Record<string, string> = {};
const accounts: Record<string, string> = {};
const outputs: CliResult[] = [];

async function cli(...args: string[]): Promise<CliResult> {
  const result = await runCli(['--config', officeFile, ...args], { SOUTH_KEY: keys['south'] ?? '' });
  outputs.push(result);
  return result;
}

/** Waits (bounded) until the office process has printed what the check looks for. */
async function waitFor(check: () => boolean, output: () => string): Promise<void> {
  for (let round = 0; round < 100 && !check(); round++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  if (!check()) throw new Error(`not seen within 10 s; the office printed:\n${output()}`);
}

async function linesOf(company: string): Promise<ReadoutLine[]> {
  const readout = await sandbox.control.state(accounts[company]);
  return Object.values(readout['journalLines'] as Record<string, ReadoutLine>);
}

const books = (company: string): string => join(dir, 'companies.d', 'books', company);
const dataFiles = (company: string): string[] =>
  existsSync(books(company)) ? readdirSync(books(company)).filter((name) => /\.doc$/i.test(name)) : [];

beforeAll(async () => {
  sandbox = await startSandbox({ createDomain });
  for (const [name, count] of [
    ['north', 6],
    ['south', 10],
  ] as const) {
    const created = await sandbox.control.createAccount({ type: 'buyer', name: `${name} ltd`, plan: 'Pro' });
    accounts[name] = created.id;
    keys[name] = created.key;
    await sandbox.control.action('approve_journal_lines', { count }, created.id);
  }
  mkdirSync(join(dir, 'companies.d', 'keys'), { recursive: true });
  writeFileSync(join(dir, 'companies.d', 'keys', 'north.key'), `${keys['north']}\n`);
  writeFileSync(officeFile, journalOfficeYaml(sandbox.baseUrl, ['companies:', '  dir: companies.d']));
  // One company's key from a file next to its company file, the other's from the environment.
  writeFileSync(
    join(dir, 'companies.d', 'north.yaml'),
    'api:\n  api_key_file: keys/north.key\nconnectors:\n  books:\n    import_dir: books/north\n',
  );
  writeFileSync(
    join(dir, 'companies.d', 'south.yaml'),
    'api:\n  api_key: ${SOUTH_KEY}\nconnectors:\n  books:\n    import_dir: books/south\n',
  );
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

// Each test starts a dozen CLI processes one after another (about 1.5 s each on a busy 2-core machine).
describe('an office of two companies through the CLI', { timeout: 90_000 }, () => {
  it('validates every company and asks which one a command is for', async () => {
    const valid = await cli('config', 'validate');
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    expect(valid.stdout).toContain(`${officeFile}: OK (2 companies)`);
    expect(valid.stdout).toContain(
      `north: ${join(dir, 'companies.d', 'north.yaml')} OK (1 connector, 1 job; state ${join(dir, 'state', 'companies', 'north', 'state.db')})`,
    );
    const unchosen = await cli('sync', 'journal');
    expect(unchosen.code).toBe(2);
    expect(unchosen.stderr).toContain(
      `${officeFile} is an office of 2 companies (north, south): choose one with --company NAME`,
    );
    const unknown = await cli('--company', 'west', 'status');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no company "west"');
    expect(unknown.stderr).toContain('(companies: north, south)');
    // A company named in an argument, of a config of one company: what to do instead.
    const single = join(dir, 'single.yaml');
    writeFileSync(single, journalOfficeYaml(sandbox.baseUrl));
    const pause = await runCli(['--config', single, 'companies', 'pause', 'north']);
    expect(pause.code).toBe(2);
    expect(pause.stderr).toContain(
      `companies pause north: ${single} is the config of one company, not an office (it has no companies: block): use \`supply-sync jobs pause <job>\` for each job`,
    );
    const job = await runCli(['--config', single, 'jobs', 'pause', 'north/journal']);
    expect(job.code).toBe(2);
    expect(job.stderr).toContain('name the job without a company: `journal`');
  });

  it("checks a company's books folder where its daemon writes: beside the company's file", async () => {
    const result = await cli('--company', 'north', 'doctor', '--offline');
    expect(result.stdout).toContain(`import folder: ${books('north')} is writable`);
    // Nothing made beside the office file, where a relative folder would have resolved before.
    expect(existsSync(join(dir, 'books'))).toBe(false);
  });

  it('says a company that has not exported yet has no books to reconcile, and what to do', async () => {
    const never = await cli('--company', 'south', 'reconcile', 'journal', '--period', '2026-11');
    expect(never.code).toBe(2);
    expect(never.stderr).toContain('job journal has not exported yet (no successful run in ');
    expect(never.stderr).toContain(
      'run it (`supply-sync sync journal`, or let the daemon run it) and reconcile then',
    );
  });

  it("exports one company's journal into its own books and state only", async () => {
    const demoBefore = (await sandbox.control.state())['journalLines'];
    const northBefore = await linesOf('north');
    const northApproved = northBefore.filter((line) => line.status === 'approved_for_export');
    const southBefore = await linesOf('south');
    expect(northApproved.length).toBeGreaterThan(0);

    const north = await cli('--company', 'north', 'sync', 'journal');
    expect(north.stderr).toBe('');
    expect(north.code).toBe(0);
    expect(north.stdout).toMatch(/^journal: ok /m);

    // Every line that was approved is exported now; no other line changed (the seed holds lines exported earlier).
    const northAfter = await linesOf('north');
    const approvedIds = new Set(northApproved.map((line) => line.id));
    const exported = northAfter.filter((line) => approvedIds.has(line.id) && line.status === 'exported');
    expect(exported).toHaveLength(northApproved.length);
    expect(northAfter.filter((line) => !approvedIds.has(line.id))).toEqual(
      northBefore.filter((line) => !approvedIds.has(line.id)),
    );
    expectBooksMatchLines(hashavshevetTotals(books('north')), exported, { references: 'sequence' });
    // The other company: its world, books and state untouched.
    expect(await linesOf('south')).toEqual(southBefore);
    expect(dataFiles('south')).toEqual([]);
    expect(existsSync(join(dir, 'state', 'companies', 'north', 'state.db'))).toBe(true);
    expect(existsSync(join(dir, 'state', 'companies', 'south', 'state.db'))).toBe(false);

    const south = await cli('--company', 'south', 'sync', 'journal');
    expect(south.code).toBe(0);
    const southApproved = new Set(
      southBefore.filter((line) => line.status === 'approved_for_export').map((line) => line.id),
    );
    const southExported = (await linesOf('south')).filter(
      (line) => southApproved.has(line.id) && line.status === 'exported',
    );
    expect(southExported).toHaveLength(southApproved.size);
    expectBooksMatchLines(hashavshevetTotals(books('south')), southExported, { references: 'sequence' });
    expect(hashavshevetTotals(books('north')).debit).toBe(hashavshevetTotals(books('north')).credit);
    expect(dataFiles('north').length).toBeGreaterThan(0);

    // The sandbox's demo buyer, whose key no company has, was not touched either.
    expect((await sandbox.control.state())['journalLines']).toEqual(demoBefore);

    // A second run of the first company finds nothing new: nothing is written twice.
    const filesBefore = dataFiles('north');
    const again = await cli('--company', 'north', 'sync', 'journal');
    expect(again.code).toBe(0);
    expect(dataFiles('north')).toEqual(filesBefore);
  });

  it('takes `runs --all --job <company>/<job>`, the name it shows, and a bare job name for every company', async () => {
    const jobLines = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('#'));
    const north = await cli('runs', '--all', '--job', 'north/journal');
    expect(north.stderr).not.toContain('error');
    expect(north.code).toBe(0);
    expect(jobLines(north.stdout)).toHaveLength(2);
    expect(jobLines(north.stdout).every((line) => / north\/journal /.test(line))).toBe(true);
    const json = JSON.parse(
      (await cli('runs', '--all', '--json', '--job', 'south/journal')).stdout,
    ) as Array<{
      company: string;
      job: string;
    }>;
    expect(json.map((run) => `${run.company}/${run.job}`)).toEqual(['south/journal']);
    const every = await cli('runs', '--all', '--job', 'journal');
    expect(every.code).toBe(0);
    expect(jobLines(every.stdout)).toHaveLength(3);
    const unknown = await cli('runs', '--all', '--job', 'east/journal');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no company "east" in the office (companies: north, south)');
  });

  it('lists every company in `status --all` and `runs --all`, jobs named <company>/<job>', async () => {
    const runs = await cli('runs', '--all');
    expect(runs.code).toBe(0);
    const lines = runs.stdout.trim().split('\n');
    expect(lines.filter((line) => / north\/journal /.test(line))).toHaveLength(2);
    expect(lines.filter((line) => / south\/journal /.test(line))).toHaveLength(1);
    const json = JSON.parse((await cli('runs', '--all', '--json')).stdout) as Array<{
      company: string;
      job: string;
    }>;
    expect(json.map((run) => `${run.company}/${run.job}`).sort()).toEqual([
      'north/journal',
      'north/journal',
      'south/journal',
    ]);
    // Every company's books against its own API account, for each period the exported lines fall in.
    const periods = new Set(
      [...(await linesOf('north')), ...(await linesOf('south'))]
        .filter((line) => line.status === 'exported' && line.export_batch_id !== null)
        .map((line) => (line as ReadoutLine & { accounting_period: string }).accounting_period),
    );
    expect(periods.size).toBeGreaterThan(0);
    for (const period of periods) {
      const reconciled = await cli('reconcile', 'journal', '--period', period, '--all');
      expect(reconciled.stderr).toContain('2 companies: 2 match, 0 with differences, 0 could not be checked');
      expect(reconciled.code, reconciled.stdout).toBe(0);
      expect(reconciled.stdout).toMatch(/^== north: match$/m);
      expect(reconciled.stdout).toMatch(/^== south: match$/m);
    }
    // One company's books folder moved away: that company could not be checked, the other still matches.
    const period = [...periods][0] as string;
    renameSync(books('south'), `${books('south')}.moved`);
    try {
      const missing = await cli('reconcile', 'journal', '--period', period, '--all');
      expect(missing.code, missing.stdout).toBe(2);
      expect(missing.stdout).toMatch(/^== north: match$/m);
      expect(missing.stdout).toMatch(/^== south: could not run\ncould not run: .*books\/south/m);
      expect(missing.stderr).toContain('2 companies: 1 match, 0 with differences, 1 could not be checked');
    } finally {
      renameSync(`${books('south')}.moved`, books('south'));
    }
    const status = await cli('status', '--all');
    expect(status.code).toBe(0);
    // No office process has run yet: said first, with what to do.
    expect(status.stdout).toMatch(
      /^office: not running here: no office has run with .*; start it with `supply-sync run`/,
    );
    expect(status.stdout).toMatch(/^== north: /m);
    expect(status.stdout).toMatch(/^== south: /m);
    const one = await cli('--company', 'south', 'runs');
    expect(one.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^#\d+ journal /),
      '(times in Asia/Jerusalem)',
    ]);
    expect(one.stdout).toMatch(/^#\d+ journal /);
  });

  it('runs every company in one process; a command for one company reaches it there; SIGTERM stops it', async () => {
    const office = spawnCli(['--config', officeFile, 'run', '--port', '0', '--no-catch-up'], {
      SOUTH_KEY: keys['south'] ?? '',
    });
    try {
      const url = await office.ready;
      expect(url, office.output()).not.toBeNull();
      const status = (await (
        await fetch(`${url}/status`, { headers: { accept: 'application/json' } })
      ).json()) as {
        companies: { company: string; state: string }[];
      };
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(status.companies.map((row) => [row.company, row.state]).sort()).toEqual([
        ['north', 'running'],
        ['south', 'running'],
      ]);
      // The running office holds south's state: the command is queued there and carried out by the office.
      const queued = await cli('--company', 'south', 'sync', 'journal');
      expect(queued.code, queued.stderr).toBe(0);
      const runs = await cli('--company', 'south', 'runs', '--limit', '1');
      expect(runs.stdout).toMatch(/^#\d+ journal .* operator by cli:/);
      const all = JSON.parse((await cli('status', '--all', '--json')).stdout) as {
        office: { running: boolean };
      };
      expect(all.office.running).toBe(true);
      office.kill('SIGTERM');
      expect((await office.exited).code, office.output()).toBe(0);
      // Stopped, it lets its state file go: told so.
      expect((await cli('status', '--all')).stdout).toMatch(/^office: not running here: no daemon holds/);
      outputs.push({ code: 0, stdout: office.output(), stderr: '' });
    } finally {
      await killAndWait(office);
    }
  });

  /**
   * The office's /readyz once it says `status`, or as it last answered: it reads the companies at most every 2 s (a
   * prober's calls do not each read every company), so a change shows within that.
   */
  async function readinessOnce(url: string, status: string, token?: string): Promise<unknown> {
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    let body: unknown;
    for (let tries = 0; tries < 50; tries++) {
      const response = await fetch(`${url}/readyz`, { headers });
      body = await response.json();
      if ((body as { status?: string }).status === status) {
        expect(response.status).toBe(200);
        return body;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return body;
  }

  it('pauses and resumes every job of one company in the running office, the other company untouched', async () => {
    const office = spawnCli(['--config', officeFile, 'run', '--port', '0', '--no-catch-up'], {
      SOUTH_KEY: keys['south'] ?? '',
    });
    const pausedJobs = async (url: string): Promise<string[]> => {
      const status = (await (
        await fetch(`${url}/status`, { headers: { accept: 'application/json' } })
      ).json()) as { companies: { company: string; jobs: { name: string; paused: boolean }[] }[] };
      return status.companies.flatMap((row) =>
        row.jobs.filter((job) => job.paused).map((job) => `${row.company}/${job.name}`),
      );
    };
    try {
      const url = await office.ready;
      expect(url, office.output()).not.toBeNull();
      const paused = await cli('companies', 'pause', 'north', '--reason', 'month-end close');
      expect(paused.code, paused.stderr).toBe(0);
      expect(paused.stdout).toBe('north: paused: journal\n');
      expect(await pausedJobs(url as string)).toEqual(['north/journal']);
      // The office page says why, as the operator gave it.
      const page = await (await fetch(`${url as string}/status`)).text();
      expect(page).toContain('journal: paused (month-end close)');
      // Still ready, and said to be paused, as a single daemon says it: on the page and at /readyz, where a signed-in
      // caller (the local operator's token) sees which company's jobs are paused.
      expect(page).toMatch(/<td>running<\/td><td>paused<\/td>/);
      const token = readFileSync(join(dir, 'state', 'control-token'), 'utf8').trim();
      expect(await readinessOnce(url as string, 'paused', token)).toEqual({
        status: 'paused',
        companies: [],
        paused: [{ company: 'north', jobs: ['journal'] }],
        runByNoInstance: [],
      });
      expect(await readinessOnce(url as string, 'paused')).toEqual({ status: 'paused' });
      const again = await cli('companies', 'pause', 'north');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe('north: no job paused; paused already: journal\n');
      const commands = await cli('--company', 'north', 'commands', 'list', '--all');
      expect(commands.stdout).toMatch(/jobs\.pause .*cli:/);
      // Each command rang the office, which read north's queue at once (its own poll is every 10 s).
      const officeState = openStateStore({
        file: join(dir, 'state', 'office.db'),
        clock: systemClock,
        readOnly: true,
      });
      try {
        const wakes = officeState.commands
          .list({ limit: 50 })
          .filter((c) => c.kind === 'company.wake' && c.args['company'] === 'north');
        expect(wakes.length).toBeGreaterThanOrEqual(2);
        for (const wake of wakes) expect(wake).toMatchObject({ status: 'done', result: { woken: true } });
        // The ring is what took them: each of north's commands (carried out in the state, at once) was finished
        // before a ring was answered; had its own poll (every 10 s) taken it, every ring would have been answered first.
        const north = openStateStore({
          file: join(dir, 'state', 'companies', 'north', 'state.db'),
          clock: systemClock,
          readOnly: true,
        });
        try {
          const pauses = north.commands.list({ limit: 50 }).filter((c) => c.kind === 'jobs.pause');
          expect(pauses.length).toBeGreaterThan(0);
          for (const pause of pauses) {
            const rung = wakes.filter((wake) => (wake.finishedAt ?? 0) >= (pause.finishedAt ?? Infinity));
            expect(rung.length, `command #${pause.id} was finished after every ring`).toBeGreaterThan(0);
          }
        } finally {
          north.close();
        }
      } finally {
        officeState.close();
      }

      const conflicting = await cli('--company', 'south', 'jobs', 'resume', 'north/journal');
      expect(conflicting.code).toBe(2);
      expect(conflicting.stderr).toContain('"north/journal" names company north, but --company');
      const resumed = await cli('jobs', 'resume', 'north/journal');
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toBe('north/journal resumed\n');
      expect(await pausedJobs(url as string)).toEqual([]);
      expect(await readinessOnce(url as string, 'ready')).toEqual({ status: 'ready' });
      const notPaused = await cli('companies', 'resume', 'north', '--json');
      expect(JSON.parse(notPaused.stdout)).toEqual({
        company: 'north',
        changed: [],
        unchanged: ['journal'],
        failed: [],
      });
      office.kill('SIGTERM');
      expect((await office.exited).code, office.output()).toBe(0);
    } finally {
      await killAndWait(office);
    }
  });

  it('starts a company whose file is added and stops one whose file is removed, on SIGHUP or `config reload`', async () => {
    const west = await sandbox.control.createAccount({ type: 'buyer', name: 'west ltd', plan: 'Pro' });
    const westFile = join(dir, 'companies.d', 'west.yaml');
    const office = spawnCli(['--config', officeFile, 'run', '--port', '0', '--no-catch-up'], {
      SOUTH_KEY: keys['south'] ?? '',
    });
    const companiesOf = async (url: string): Promise<string[]> => {
      const status = (await (
        await fetch(`${url}/status`, { headers: { accept: 'application/json' } })
      ).json()) as { companies: { company: string; state: string }[] };
      return status.companies.map((row) => `${row.company}:${row.state}`).sort();
    };
    try {
      const url = (await office.ready) as string;
      expect(url, office.output()).not.toBeNull();
      writeFileSync(
        westFile,
        `api:\n  api_key: ${west.key}\nconnectors:\n  books:\n    import_dir: books/west\n`,
      );
      office.kill('SIGHUP');
      await waitFor(() => office.output().includes('office config reloaded'), office.output);
      expect(office.output()).toContain('  started: west');
      expect(await companiesOf(url)).toEqual(['north:running', 'south:running', 'west:running']);

      rmSync(westFile);
      const reloaded = await cli('config', 'reload');
      expect(reloaded.code, reloaded.stderr).toBe(0);
      // Carried out by the office from its own state file's queue, recorded with who asked.
      const officeState = openStateStore({
        file: join(dir, 'state', 'office.db'),
        clock: systemClock,
        readOnly: true,
      });
      try {
        const [command] = officeState.commands.list({ limit: 1 });
        expect(command).toMatchObject({ kind: 'config.reload', status: 'done' });
        expect(command?.requestedBy).toMatch(/^cli:/);
      } finally {
        officeState.close();
      }
      expect(reloaded.stdout).toBe(
        `office config reloaded from ${officeFile}\n  stopped (file removed): west\n  unchanged: north, south\n`,
      );
      expect(await companiesOf(url)).toEqual(['north:running', 'south:running']);
      expect((await fetch(`${url}/companies/west/status`)).status).toBe(404);
      office.kill('SIGTERM');
      expect((await office.exited).code, office.output()).toBe(0);
    } finally {
      rmSync(westFile, { force: true });
      await killAndWait(office);
    }
    const idle = await cli('config', 'reload');
    expect(idle.code, idle.stderr).toBe(0);
    expect(idle.stdout).toBe(
      `no office is running: ${officeFile} and its 2 companies are read when it starts\n`,
    );
  });

  it('names a company with a config mistake first in --all, shows the others, and ends in an error', async () => {
    const broken = join(dir, 'companies.d', 'zbroken.yaml');
    writeFileSync(broken, "api:\n  api_key: svc_test_x\njobs:\n  journal:\n    schedule: 'nightly'\n");
    try {
      const status = await cli('status', '--all');
      expect(status.code, status.stderr).toBe(1);
      expect(status.stderr).toContain(`warning: company zbroken is left out: ${broken}:`);
      expect(status.stdout).toMatch(
        /^== zbroken: left out, its config cannot be read here: .*jobs\.journal\.schedule/m,
      );
      expect(status.stdout).toMatch(/^== north: /m);
      expect(status.stdout.indexOf('== zbroken')).toBeLessThan(status.stdout.indexOf('== north'));
      expect(status.stderr).toContain('the config of 1 company could not be read here');
      const validate = await cli('config', 'validate');
      expect(validate.code).toBe(2);
      expect(validate.stderr).toContain(`${broken}:5:15 jobs.journal.schedule`);
      const unknown = await cli('--company', 'nort', 'status');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('--company nort: no company "nort"');
      expect(unknown.stderr).not.toContain('config is invalid');
    } finally {
      rmSync(broken);
    }
  });

  it('says once that a mistake in the office file leaves every company out, naming the office file', async () => {
    const office = readFileSync(officeFile, 'utf8');
    writeFileSync(officeFile, `${office}timezone: \${OFFICE_TZ}\n`);
    try {
      const status = await cli('status', '--all');
      const warnings = status.stderr.split('\n').filter((line) => line.startsWith('warning:'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`companies north, south are left out: ${officeFile}`);
      expect(warnings[0]).toContain('OFFICE_TZ');
      expect(status.code).toBe(2);
      expect(status.stderr).toContain('every company of');
    } finally {
      writeFileSync(officeFile, office);
    }
  });

  it('never prints a company key', () => {
    expect(outputs.length).toBeGreaterThan(5);
    for (const { stdout, stderr } of outputs) {
      for (const key of Object.values(keys)) {
        expect(stdout).not.toContain(key);
        expect(stderr).not.toContain(key);
      }
    }
  });
});
