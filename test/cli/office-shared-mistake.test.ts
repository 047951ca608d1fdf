/**
 * A mistake in the office file itself, found for every company (the shared-PostgreSQL office of docs/companies.md
 * started without SUPPLY_SYNC_INSTANCE): `run` stops, telling it once at the office file and key as `config
 * validate` does, and exits 2 as a config mistake.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalOfficeYaml } from '../support/office.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-shared-mistake-'));
const officeFile = join(dir, 'office.yaml');

beforeAll(() => {
  mkdirSync(join(dir, 'companies.d'), { recursive: true });
  writeFileSync(
    officeFile,
    journalOfficeYaml('http://127.0.0.1:9/v2', ['companies:', '  dir: companies.d']).replace(
      'state:\n  path: state/office.db\n',
      'state:\n  path: state/${SUPPLY_SYNC_INSTANCE}/office.db\n  url: postgres://postgres@127.0.0.1:9/office\n' +
        'ha:\n  instance: ${SUPPLY_SYNC_INSTANCE}\n',
    ),
  );
  for (const name of ['north', 'south']) {
    writeFileSync(
      join(dir, 'companies.d', `${name}.yaml`),
      `api:\n  api_key: svc_test_${name}000000000000\nstate:\n  url: postgres://postgres@127.0.0.1:9/${name}\n` +
        `connectors:\n  books:\n    import_dir: books/${name}\n`,
    );
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a mistake in the office file found for every company', { timeout: 60_000 }, () => {
  it('stops `run` once, at the office file and key, in the words of `config validate`, exit 2', async () => {
    const validate = await runCli(['--config', officeFile, 'config', 'validate']);
    const told = `${validate.stdout}${validate.stderr}`;
    expect(told).toContain(
      `${officeFile}:4:9 state.path: environment variable SUPPLY_SYNC_INSTANCE is not set (referenced as ` +
        '${SUPPLY_SYNC_INSTANCE}); set it or remove the reference (found for every company)',
    );
    expect(told).toMatch(/ha\.instance: environment variable SUPPLY_SYNC_INSTANCE is not set.*every company/);
    expect(validate.code).toBe(2);

    const run = await runCli(['--config', officeFile, 'run', '--port', '0', '--no-catch-up']);
    expect(`${run.stdout}${run.stderr}`).toBe(told);
    expect(run.stderr).not.toContain('internal_error');
    expect(run.code).toBe(2);
  });

  it('stops `run` the same for an ha.instance alone taken from the unset variable', async () => {
    const haOnly = join(dir, 'ha-only.yaml');
    writeFileSync(
      haOnly,
      journalOfficeYaml('http://127.0.0.1:9/v2', ['companies:', '  dir: companies.d']).replace(
        'state:\n  path: state/office.db\n',
        'state:\n  path: state/office.db\n  url: postgres://postgres@127.0.0.1:9/office\n' +
          'ha:\n  instance: ${SUPPLY_SYNC_INSTANCE}\n',
      ),
    );
    const validate = await runCli(['--config', haOnly, 'config', 'validate']);
    const run = await runCli(['--config', haOnly, 'run', '--port', '0', '--no-catch-up']);
    expect(`${run.stdout}${run.stderr}`).toBe(`${validate.stdout}${validate.stderr}`);
    expect(run.stderr).toContain(
      `${haOnly}:7:13 ha.instance: environment variable SUPPLY_SYNC_INSTANCE is not set`,
    );
    expect(run.stderr.match(/SUPPLY_SYNC_INSTANCE is not set/g)).toHaveLength(1);
    expect(run.code).toBe(2);
  });
});
