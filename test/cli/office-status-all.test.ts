/**
 * `status --all` of an office whose companies' state cannot all be read: a company whose database has no state
 * yet is "not run yet", as one without a state file is, or one whose state file was created and never migrated (a
 * first start killed at once); a company whose database cannot be reached is named with
 * the reason (no password), after the others are shown, and the command ends in an error; so is one whose config
 * cannot be read here (its key in a variable only the office's service has), listed first.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDatabase, postgresProbe, type TempDatabase } from '../ha/support/postgres.js';
import { journalOfficeYaml } from '../support/office.js';
import { runCli } from './run-cli.js';
import { freePort } from '../support/free-port.js';

const PASSWORD = 'status-all-pw-51c0';
const probe = await postgresProbe();
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-status-all-'));
let fresh: TempDatabase | undefined;

const companyFile = (name: string, state: string): void =>
  writeFileSync(
    join(dir, 'companies.d', `${name}.yaml`),
    `api:\n  api_key: svc_test_${name}000000000000\n${state}connectors:\n  books:\n    import_dir: books/${name}\n`,
  );

beforeAll(async () => {
  if (!probe.available) return;
  fresh = await createTempDatabase();
  mkdirSync(join(dir, 'companies.d'), { recursive: true });
  writeFileSync(
    join(dir, 'office.yaml'),
    journalOfficeYaml('http://127.0.0.1:9/v2', ['companies:', '  dir: companies.d']),
  );
  companyFile('files', '');
  companyFile('fresh', `state:\n  url: ${fresh.url}\n`);
  // An empty file is an SQLite database with no tables: what a first start leaves when killed before migrating.
  writeFileSync(join(dir, 'interrupted.db'), '');
  // Its key comes from a variable this shell lacks (the office's service has it): it is listed, not left unsaid.
  writeFileSync(
    join(dir, 'companies.d', 'keyless.yaml'),
    'api:\n  api_key: ${KEY_ONLY_THE_SERVICE_HAS}\nconnectors:\n  books:\n    import_dir: books/keyless\n',
  );
  companyFile('interrupted', `state:\n  path: ${join(dir, 'interrupted.db')}\n`);
  companyFile(
    'unreachable',
    `state:\n  url: postgres://sync:${PASSWORD}@127.0.0.1:${await freePort()}/state\n`,
  );
});

afterAll(async () => {
  await fresh?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!probe.available)(
  `status --all before the office first ran${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    it('shows companies not run yet as such, names the one whose state cannot be read, and ends in an error', async () => {
      const result = await runCli(['--config', join(dir, 'office.yaml'), 'status', '--all']);
      const output = `${result.stdout}${result.stderr}`;
      expect(result.stdout).toContain('== files: not run yet');
      expect(result.stdout).toContain('== fresh: not run yet');
      expect(result.stdout).toContain('== interrupted: not run yet');
      expect(result.stdout).toMatch(/== unreachable: its state cannot be read: .*state\.url/);
      // The unreadable one first: it is the one to look at.
      expect(result.stdout.indexOf('== unreachable')).toBeLessThan(result.stdout.indexOf('== files'));
      expect(result.stderr).toContain('the state of 1 company could not be read');
      expect(result.stdout).toMatch(
        /^== keyless: left out, its config cannot be read here: .*KEY_ONLY_THE_SERVICE_HAS is not set/m,
      );
      expect(result.stdout.indexOf('== keyless')).toBeLessThan(result.stdout.indexOf('== files'));
      expect(result.stderr).toContain('the config of 1 company could not be read here');
      expect(result.code).not.toBe(0);
      expect(output).not.toContain(PASSWORD);
      const json = await runCli(['--config', join(dir, 'office.yaml'), 'status', '--all', '--json']);
      const parsed = JSON.parse(json.stdout) as {
        companies: Array<{ company: string; error?: string; left_out?: boolean }>;
      };
      expect(parsed.companies.find((row) => row.company === 'unreachable')?.error).toMatch(/state\.url/);
      expect(parsed.companies.find((row) => row.company === 'keyless')).toMatchObject({
        left_out: true,
        error: expect.stringContaining('KEY_ONLY_THE_SERVICE_HAS'),
      });
      expect(json.code).not.toBe(0);
      expect(json.stdout).not.toContain(PASSWORD);
    });
  },
);
