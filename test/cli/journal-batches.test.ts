/**
 * `supply-sync journal batches` and `journal drop-batch`, run as a user would (compiled CLI in a child process)
 * against a state file holding the saved batches of a journal-export job: one to be written, one in the books and
 * one whose stored amount was altered (its checksum no longer matches).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanStore, type BatchPlan } from '../../src/flows/journal-export/plans.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { plan } from '../flows/journal-export/plan-fixture.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-cli-journal-'));
const configFile = join(dir, 'supply-sync.yaml');
const stateFile = join(dir, 'state.db');
const NAMESPACE = 'journal-export:books-export:plans';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pending: BatchPlan = { ...plan(), createdAt: Date.parse('2026-06-01T08:00:00Z') };
const written: BatchPlan = {
  ...plan(),
  batchKey: 'je-written',
  createdAt: Date.parse('2026-06-01T07:00:00Z'),
  written: true,
  location: 'gl rows of je-written',
};
const damagedKey = 'je-damaged';

function withPlans<T>(use: (plans: PlanStore, state: ReturnType<typeof openStateStore>) => T): T {
  const state = openStateStore({ file: stateFile, clock: systemClock });
  try {
    return use(new PlanStore(state, 'books-export'), state);
  } finally {
    state.close();
  }
}

beforeAll(() => {
  writeFileSync(
    configFile,
    [
      'api:',
      '  sandbox: embedded',
      'state:',
      '  path: state.db',
      'connectors:',
      '  books:',
      '    type: sql',
      '    connection: { driver: sqlite, file: books.sqlite }',
      '    journal:',
      '      table: gl',
      '      columns: { batch_key: batch_key, line_number: line_no, account: account, debit: debit, credit: credit }',
      'jobs:',
      '  books-export:',
      '    flow: journal-export',
      '    connector: books',
      '',
    ].join('\n'),
  );
  withPlans((plans, state) => {
    plans.save(pending);
    plans.save(written);
    plans.save({ ...plan(), batchKey: damagedKey });
    const text = (
      state.db.prepare('SELECT value FROM kv WHERE namespace = ? AND key = ?').get(NAMESPACE, damagedKey) as {
        value: string;
      }
    ).value;
    expect(text).toContain('"57.63"');
    state.kv.setJson(NAMESPACE, damagedKey, text.replace('"57.63"', '"75.63"'));
    const newer = text.replace('"version":2', '"version":3').replace(`"${damagedKey}"`, '"je-newer"');
    state.kv.setJson(NAMESPACE, 'je-newer', newer);
    state.kv.setJson(NAMESPACE, 'je-truncated', text.slice(0, 80));
  });
});

const cli = (...args: string[]) => runCli(['--config', configFile, ...args]);

describe('journal batches and journal drop-batch', () => {
  it(
    'lists the saved batches, those that cannot be read first with the reason',
    { timeout: 90_000 },
    async () => {
      const { code, stdout, stderr } = await cli('journal', 'batches');
      expect(code, stderr).toBe(0);
      const periods = 'periods 2026-04, 2026-05';
      expect(stdout.trim().split('\n')).toEqual([
        `books-export ${damagedKey}: CANNOT BE READ: the saved plan ${damagedKey} does not match its checksum; it is damaged`,
        'books-export je-newer: CANNOT BE READ: the saved plan je-newer is in form 3, which only a newer version reads; it is newer or damaged',
        'books-export je-truncated: CANNOT BE READ: the saved plan je-truncated is not valid JSON; it is damaged',
        `books-export je-written: saved 2026-06-01T07:00:00.000Z, 10 lines, 7 entries, ${periods}; in the books (gl rows of je-written), lines to be marked exported`,
        `books-export ${pending.batchKey}: saved 2026-06-01T08:00:00.000Z, 10 lines, 7 entries, ${periods}; to be written`,
        expect.stringContaining('journal drop-batch <batch-key> --job <job>'),
      ]);

      const json = await cli('journal', 'batches', '--job', 'books-export', '--json');
      expect(json.code, json.stderr).toBe(0);
      const listed = JSON.parse(json.stdout) as Array<{ batchKey: string; readable: boolean; kind?: string }>;
      expect(listed.map((batch) => [batch.batchKey, batch.readable, batch.kind])).toEqual([
        [damagedKey, false, 'damaged'],
        ['je-newer', false, 'newer'],
        ['je-truncated', false, 'damaged'],
        ['je-written', true, undefined],
        [pending.batchKey, true, undefined],
      ]);
    },
  );

  it('names the journal-export jobs when --job is another', { timeout: 90_000 }, async () => {
    const { code, stderr } = await cli('journal', 'batches', '--job', 'orders');
    expect(code).toBe(2);
    expect(stderr).toContain('--job orders is not a journal-export job (the config has books-export)');
  });

  it(
    'removes only the batches that cannot be read, and none while the daemon runs',
    { timeout: 90_000 },
    async () => {
      for (const key of [pending.batchKey, 'je-written']) {
        const refused = await cli('journal', 'drop-batch', key, '--job', 'books-export');
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain(`the saved batch ${key} of job books-export can be read`);
        expect(refused.stderr).toContain('it was not removed');
      }
      const missing = await cli('journal', 'drop-batch', 'je-none', '--job', 'books-export');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('job books-export has no saved batch je-none');

      // A batch a newer version saved is that version's to finish, unless the user says its form is damage.
      const newer = await cli('journal', 'drop-batch', 'je-newer', '--job', 'books-export');
      expect(newer.code).toBe(1);
      expect(newer.stderr).toContain('is in a form only a newer version reads: that version finishes it');

      // While the daemon holds the state file, nothing is removed.
      const daemon = openStateStore({ file: stateFile, clock: systemClock });
      try {
        const locked = await cli('journal', 'drop-batch', damagedKey, '--job', 'books-export');
        expect(locked.code).toBe(1);
        expect(locked.stderr).toContain('is in use by another supply-sync daemon');
      } finally {
        daemon.close();
      }
      expect(withPlans((plans) => plans.keys()).sort()).toEqual(
        [damagedKey, 'je-newer', 'je-truncated', 'je-written', pending.batchKey].sort(),
      );

      for (const [key, extra] of [
        [damagedKey, []],
        ['je-truncated', []],
        ['je-newer', ['--newer']],
      ] as const) {
        const dropped = await cli('journal', 'drop-batch', key, '--job', 'books-export', ...extra);
        expect(dropped.code, dropped.stderr).toBe(0);
        expect(dropped.stdout).toContain(`saved batch ${key} of job books-export removed`);
      }
      expect(withPlans((plans) => plans.list())).toEqual([written, pending]);
    },
  );
});
