/**
 * A revoked API key, as a new user meets it: `sync`, `status` and `runs` (the compiled CLI, a child process) against
 * the sandbox over HTTP, the key read from a file, the runs on a real state file. Each says the fix `doctor` and
 * /readyz give, naming the setting the config uses, and never the key.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCli, STACK_LINE } from './run-cli.js';

const FIX = 'the key was revoked: create a new key in the API console and set it (api.api_key_file)';

let sandbox: RunningSandbox;
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-refused-key-'));
const config = join(dir, 'supply-sync.yaml');

beforeAll(async () => {
  sandbox = await startSandbox();
  writeFileSync(join(dir, 'api.key'), `${sandbox.keys.revoked}\n`);
  writeFileSync(config, ordersConfig([`base_url: ${sandbox.baseUrl}`, 'api_key_file: api.key'], 'state.db'));
});

/** A config with one orders job on the demo ERP, its `api:` block of `api` lines and its state file `state`. */
function ordersConfig(api: readonly string[], state: string): string {
  return [
    'api:',
    ...api.map((line) => `  ${line}`),
    'state:',
    `  path: state/${state}`,
    'connectors:',
    '  erp: { type: demo-erp, data_dir: erp, journal: false }',
    'jobs:',
    '  orders: { flow: orders, connector: erp }',
    'mappings:',
    '  branches: { br_tlv: TLV01 }',
    '',
  ].join('\n');
}

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a revoked API key on the command line', () => {
  it(
    'sync, status, runs and doctor say the fix with the setting the config uses',
    { timeout: 60_000 },
    async () => {
      const synced = await runCli(['sync', 'orders', '--config', config]);
      expect(synced.code).toBe(1);
      expect(synced.stderr).toContain('key_revoked');
      expect(synced.stderr).toContain(FIX);

      const status = await runCli(['status', '--config', config]);
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/^orders .*key_revoked/m);
      expect(status.stdout).toContain(FIX);

      const runs = await runCli(['runs', '--config', config]);
      expect(runs.code).toBe(0);
      expect(runs.stdout).toMatch(/^#1 orders .*key_revoked/m);
      expect(runs.stdout).toContain(FIX);

      // doctor says the same fix.
      const doctor = await runCli(['doctor', '--config', config]);
      expect(doctor.stdout).toMatch(/^FAIL api .*key_revoked/m);
      expect(doctor.stdout).toContain(FIX);

      for (const output of [synced, status, runs, doctor]) {
        const text = output.stdout + output.stderr;
        expect(text).not.toContain(sandbox.keys.revoked);
        expect(text).not.toMatch(STACK_LINE);
      }
      // The error as a person reads it (not the JSON log lines): no class name of ours in front.
      for (const read of [synced.stderr, status.stdout, runs.stdout, doctor.stdout]) {
        expect(read).not.toMatch(/\w+Error: /);
      }
    },
  );
});

describe('an API that cannot be reached, on the command line', () => {
  it('sync and runs say the fix, without the error class in front', { timeout: 60_000 }, async () => {
    const unreachable = join(dir, 'unreachable.yaml');
    // Port 9 (discard) on loopback: nothing listens there, the connection is refused at once.
    writeFileSync(
      unreachable,
      ordersConfig(
        ['base_url: http://127.0.0.1:9/v2', 'api_key: svc_test_unreachable00000000'],
        'unreachable.db',
      ),
    );
    const unreachableFix =
      'to fix: check that api.base_url is right and reachable from this host (proxy, firewall, DNS), then run the job again';
    const synced = await runCli(['sync', 'orders', '--config', unreachable]);
    expect(synced.code).toBe(1);
    expect(synced.stderr).toMatch(/^error: orders failed: .*network error/m);
    expect(synced.stderr).toContain(unreachableFix);
    const runs = await runCli(['runs', '--config', unreachable]);
    expect(runs.stdout).toContain(unreachableFix);
    for (const read of [synced.stderr, runs.stdout]) expect(read).not.toMatch(/\w+Error: /);
  });
});
