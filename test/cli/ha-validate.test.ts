/**
 * `config validate` on an `ha` block whose timings cannot work: a write timeout the lease cannot cover and a poll
 * interval longer than the lease. Each problem names the file, line and key, the constraint and the fix.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, STACK_LINE } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-ha-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('config validate, ha timings', () => {
  it(
    'explains a lease too short for the write timeout and a poll interval longer than the lease',
    { timeout: 90_000 },
    async () => {
      const file = join(dir, 'ha.yaml');
      writeFileSync(
        file,
        [
          'api:',
          '  sandbox: embedded',
          'state:',
          '  url: postgres://sync@db.example.com/supply',
          'ha:',
          '  lease: 6s',
          '  write_timeout: 30s',
          '  poll_interval: 8s',
          '',
        ].join('\n'),
      );
      const { code, stdout, stderr } = await runCli(['config', 'validate', '--config', file]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(
        `${file}:7:18 ha.write_timeout: expected the lease (6000ms) to cover write_timeout (30000ms) plus a fifth of the lease (1200ms) plus the renew interval (2000ms)`,
      );
      expect(stderr).toContain('Lower write_timeout to at most 2800ms or raise lease to at least 64286ms');
      expect(stderr).toContain(
        `${file}:8:18 ha.poll_interval: expected a poll interval no longer than the lease (6000ms)`,
      );
      expect(stderr).toContain('lower poll_interval to at most 6000ms');
      expect(stderr).toContain('config is invalid (config_invalid): 2 problems');
      expect(stderr).not.toMatch(STACK_LINE);
    },
  );

  it('accepts the default timings on a shared state', { timeout: 90_000 }, async () => {
    const file = join(dir, 'ha-ok.yaml');
    writeFileSync(
      file,
      [
        'api:',
        '  sandbox: embedded',
        'state:',
        '  url: postgres://sync@db.example.com/supply',
        'ha:',
        '  lease: 10s',
        '',
      ].join('\n'),
    );
    const { code, stderr } = await runCli(['config', 'validate', '--config', file]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
