import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, STACK_LINE } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'svc_live_CLI_SECRET_value_42';

describe('supply-sync CLI', () => {
  it('--help lists every command', { timeout: 90_000 }, async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const command of [
      'run',
      'sync',
      'status',
      'config',
      'cursor',
      'catalog',
      'dead-letters',
      'journal',
      'webhooks',
      'sandbox',
      'demo',
      'doctor',
      'commands',
    ]) {
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(stdout).toContain('3 queued for the daemon and not finished');
    expect(stdout).not.toContain('available when');
  });

  it('config validate accepts the demo config with exit code 0', { timeout: 90_000 }, async () => {
    const { code, stdout, stderr } = await runCli(['config', 'validate', '--config', 'config/demo.yaml']);
    expect(stdout).toMatch(/^config\/demo\.yaml: OK \(3 connectors, [1-9]\d* jobs\)$/m);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it(
    'config validate rejects a bad file with exit code 2, each problem located, no stack, no secret',
    { timeout: 90_000 },
    async () => {
      const file = join(dir, 'bad.yaml');
      writeFileSync(
        file,
        [
          'api:',
          '  base_url: https://api.example.com/v2',
          '  api_key: ${KEY}',
          '  timeout: ${KEY}',
          'server:',
          '  prot: 80',
          'jobs:',
          '  a:',
          '    flow: orders',
          "    schedule: '61 * * * *'",
          '',
        ].join('\n'),
      );
      const { code, stdout, stderr } = await runCli(['config', 'validate', '--config', file], {
        KEY: SECRET,
      });
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(`${file}:6:3 server.prot: unknown key "prot"; did you mean "port"?`);
      expect(stderr).toContain(
        `${file}:10:15 jobs.a.schedule: expected a cron expression like "*/5 * * * *", got "61 * * * *"`,
      );
      expect(stderr).toContain(`${file}:4:12 api.timeout: expected a duration`);
      expect(stderr).toContain('config is invalid (config_invalid): 3 problems');
      expect(stderr).not.toContain(SECRET);
      expect(stderr).not.toMatch(STACK_LINE);
    },
  );

  it('config validate names a missing file with exit code 2', { timeout: 90_000 }, async () => {
    const { code, stderr } = await runCli(['config', 'validate', '--config', join(dir, 'nope.yaml')]);
    expect(code).toBe(2);
    expect(stderr).toContain('nope.yaml: file not found');
    // doctor's fix for a file it cannot read is where to find one, not to validate what is not there.
    const doctor = await runCli(['doctor', '--offline', '--config', join(dir, 'nope.yaml')]);
    expect(doctor.stdout).toMatch(/^FAIL config .*nope\.yaml: file not found/m);
    expect(doctor.stdout).toContain(
      '-> fix: pass the config file with --config FILE (or SUPPLY_SYNC_CONFIG)',
    );
    expect(doctor.stdout).not.toContain('fix each line');
  });

  it('config schema prints a JSON Schema', { timeout: 90_000 }, async () => {
    const { code, stdout } = await runCli(['config', 'schema']);
    expect(code).toBe(0);
    const schema = JSON.parse(stdout) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['api', 'connectors', 'jobs', 'mappings']),
    );
  });

  it(
    'answers usage errors with exit code 2 and an unknown job with exit code 1 and its reason',
    { timeout: 90_000 },
    async () => {
      const unknown = await runCli(['synk']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("unknown command 'synk'");
      const missingArgument = await runCli(['sync']);
      expect(missingArgument.code).toBe(2);
      const embedded = await runCli(['webhooks', 'test', '--config', 'config/demo.yaml']);
      expect(embedded.code).toBe(2);
      expect(embedded.stderr).toContain('webhook commands need a lasting API');
      const unknownJob = await runCli(['sync', 'no-such-job', '--config', 'config/demo.yaml']);
      expect(unknownJob.code).toBe(1);
      expect(unknownJob.stderr).toContain('no job "no-such-job" in');
      expect(unknownJob.stderr).toContain('(unknown_job)');
      expect(unknownJob.stderr).not.toMatch(STACK_LINE);
    },
  );
});
