/** A reading command before anything has run with a config: it names the missing state file and what creates it. */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, STACK_LINE } from './run-cli.js';

describe('a command run before the state file exists', () => {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-state-missing-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the file and the commands that create it, and creates nothing', { timeout: 60_000 }, async () => {
    const configFile = join(dir, 'supply-sync.yaml');
    writeFileSync(
      configFile,
      [
        'api:',
        '  base_url: http://127.0.0.1:9/v2',
        '  api_key: svc_test_unused',
        'state:',
        '  path: s.db',
        '',
      ].join('\n'),
    );
    for (const command of [['status'], ['runs'], ['dead-letters', 'list']]) {
      const result = await runCli([...command, '--config', configFile]);
      expect(result.code, command.join(' ')).toBe(1);
      expect(result.stderr).toContain(`state file ${join(dir, 's.db')} does not exist yet: nothing has run`);
      expect(result.stderr).toContain(
        'Start the daemon (`supply-sync run`) or run one job (`supply-sync sync <job>`)',
      );
      expect(result.stderr).not.toMatch(STACK_LINE);
    }
    expect(existsSync(join(dir, 's.db'))).toBe(false);
  });
});
