/**
 * A company whose state cannot be opened (its state.path is a folder): the office's start, `config reload`,
 * `status --all` and a daemon of its own all say which file and key, what is wrong and what to do, in the same
 * words, and the folder is left as it was.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAndWait, spawnCli } from '../crash/harness/child.js';
import { journalOfficeYaml } from '../support/office.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-state-errors-'));
const officeFile = join(dir, 'office.yaml');
const eastFile = join(dir, 'companies.d', 'east.yaml');
const folder = join(dir, 'a-folder');

/** What every message about east's state says: its file, the key, what is wrong and the fix. */
const FOLDER_PROBLEM =
  `${eastFile}: state.path: ${folder} is a folder, not a file; ` +
  `set state.path to a file in it (${join(folder, 'state.db')}) or elsewhere`;

beforeAll(() => {
  mkdirSync(join(dir, 'companies.d'), { recursive: true });
  mkdirSync(folder, { mode: 0o755 });
  writeFileSync(officeFile, journalOfficeYaml('http://127.0.0.1:9/v2', ['companies:', '  dir: companies.d']));
  writeFileSync(
    eastFile,
    `api:\n  api_key: svc_test_east000000000000\nstate:\n  path: ${folder}\nconnectors:\n  books:\n    import_dir: books/east\n`,
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a company whose state.path is a folder', { timeout: 60_000 }, () => {
  it('is told with its file, key and fix by the office, its reload and status --all', async () => {
    const office = spawnCli(['--config', officeFile, 'run', '--port', '0', '--no-catch-up']);
    try {
      expect(await office.ready, office.output()).not.toBeNull();
      await office.printed(FOLDER_PROBLEM);
      const reload = await runCli(['--config', officeFile, 'config', 'reload']);
      expect(reload.stdout).toContain(`east: NOT RUNNING: its start failed: ${FOLDER_PROBLEM}`);
      const status = await runCli(['--config', officeFile, 'status', '--all']);
      expect(status.stdout).toContain(`== east: its state cannot be read: ${FOLDER_PROBLEM}`);
      expect(status.code).not.toBe(0);
    } finally {
      await killAndWait(office);
    }
    // Not made unreadable on the way: the folder keeps its mode.
    expect(statSync(folder).mode & 0o777).toBe(0o755);
  });

  it('is told the same by a daemon of its own', async () => {
    const single = join(dir, 'single.yaml');
    writeFileSync(
      single,
      journalOfficeYaml('http://127.0.0.1:9/v2')
        .replace('  path: state/office.db', `  path: ${folder}`)
        .replace('api:\n', 'api:\n  api_key: svc_test_single00000000000\n')
        .replace('    type: hashavshevet\n', '    type: hashavshevet\n    import_dir: books/single\n'),
    );
    const run = await runCli(['--config', single, 'run', '--port', '0', '--no-catch-up']);
    expect(run.stderr).toContain(
      `${single}: state.path: ${folder} is a folder, not a file; set state.path to a file in it`,
    );
    expect(run.stderr).not.toMatch(/unable to open database file|disk I\/O error/);
    expect(run.code).not.toBe(0);
    expect(statSync(folder).mode & 0o777).toBe(0o755);
  });
});
