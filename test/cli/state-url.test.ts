/**
 * state.url in the config: a secret (${ENV} or url_file, redacted in dumps, never echoed), and at daemon start a
 * PostgreSQL that cannot be used is one clear line naming the config file and state.url, never a stack trace.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, redactConfig } from '../../src/config/index.js';
import { runCli, STACK_LINE } from './run-cli.js';
import { freePort } from '../support/free-port.js';

const PASSWORD = 'state-url-pw-9d2c41';
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-state-url-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('state.url in the config', () => {
  it('reads the URL from url_file or ${ENV}, and redacts it in dumps', () => {
    const secretFile = join(dir, 'state-url');
    const url = `postgres://supply:${PASSWORD}@db.internal:5432/state`;
    writeFileSync(secretFile, `${url}\n`);
    const fromFile = parseConfig(
      join(dir, 'a.yaml'),
      `api:\n  sandbox: embedded\nstate:\n  url_file: ${secretFile}\n`,
    );
    expect(fromFile.config.state.url).toBe(url);
    const fromEnv = parseConfig(
      join(dir, 'b.yaml'),
      'api:\n  sandbox: embedded\nstate:\n  url: ${STATE_URL}\n',
      {
        env: { STATE_URL: url },
      },
    );
    expect(fromEnv.config.state.url).toBe(url);
    expect(JSON.stringify(redactConfig(fromEnv.config))).not.toContain(PASSWORD);
  });

  it('refuses a URL that is not PostgreSQL without echoing it', () => {
    let error: unknown;
    try {
      parseConfig(
        join(dir, 'c.yaml'),
        `api:\n  sandbox: embedded\nstate:\n  url: mysql://u:${PASSWORD}@h/db\n`,
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/state\.url.*expected a PostgreSQL URL/);
    expect((error as ConfigError).message).not.toContain(PASSWORD);
  });

  it(
    'stops the daemon at start with one line naming state.url when PostgreSQL is unreachable',
    { timeout: 90_000 },
    async () => {
      const port = await freePort();
      const configFile = join(dir, 'daemon.yaml');
      writeFileSync(
        configFile,
        ['api:', '  sandbox: embedded', 'state:', '  url: ${STATE_URL}', 'server:', '  port: 0', ''].join(
          '\n',
        ),
      );
      const result = await runCli(['run', '--config', configFile], {
        STATE_URL: `postgres://supply:${PASSWORD}@127.0.0.1:${port}/state`,
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        `${configFile}: state.url: cannot use the PostgreSQL state database postgres://supply@127.0.0.1:${port}/state`,
      );
      expect(result.stderr).toMatch(/running and reachable/);
      expect(result.stderr).not.toMatch(STACK_LINE);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    },
  );

  it(
    'refuses a dry run with a PostgreSQL state instead of running on an empty copy',
    { timeout: 90_000 },
    async () => {
      const configFile = join(dir, 'dry-run.yaml');
      writeFileSync(
        configFile,
        [
          'api:',
          '  sandbox: embedded',
          'state:',
          `  url: postgres://supply:${PASSWORD}@127.0.0.1:5432/state`,
          'connectors:',
          '  erp:',
          '    type: demo-erp',
          '    data_dir: erp',
          'jobs:',
          '  orders:',
          '    flow: orders',
          '    connector: erp',
          "    schedule: '*/5 * * * *'",
          '',
        ].join('\n'),
      );
      const result = await runCli(['sync', 'orders', '--dry-run', '--config', configFile]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(`${configFile}: state.url: a dry run needs a state file to copy`);
      expect(result.stderr).not.toMatch(STACK_LINE);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    },
  );

  it(
    'doctor reports an unreachable state database as a failed check, without the password',
    { timeout: 90_000 },
    async () => {
      const port = await freePort();
      const configFile = join(dir, 'doctor.yaml');
      writeFileSync(
        configFile,
        ['api:', '  sandbox: embedded', 'state:', '  url: ${STATE_URL}', ''].join('\n'),
      );
      const result = await runCli(['doctor', '--config', configFile], {
        STATE_URL: `postgres://supply:${PASSWORD}@127.0.0.1:${port}/state`,
      });
      expect(result.code).not.toBe(0);
      expect(result.stdout + result.stderr).toMatch(
        new RegExp(
          `state database.*state\\.url: cannot use the PostgreSQL state database postgres://supply@127\\.0\\.0\\.1:${port}/state`,
        ),
      );
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
      expect(result.stderr).not.toMatch(STACK_LINE);
    },
  );
});
