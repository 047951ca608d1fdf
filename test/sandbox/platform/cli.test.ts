import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSandboxCli } from '../../../src/sandbox/index.js';
import { call } from './fixtures.js';

describe('supply-sync sandbox (runSandboxCli)', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the base URL and keys and writes --keys-out JSON', async () => {
    let printed = '';
    const keysOut = join(dir, 'keys.json');
    const sandbox = await runSandboxCli({
      port: 0,
      keysOut,
      timeScale: '60',
      write: (text) => (printed += text),
      handleSignals: false,
    });
    try {
      expect(printed).toContain(`Sandbox listening at ${sandbox.baseUrl}`);
      expect(printed).toContain(sandbox.keys.supplier);
      const written = JSON.parse(readFileSync(keysOut, 'utf8')) as {
        base_url: string;
        keys: { key: string; client_id: string; scopes: string[]; plan: string; purpose: string }[];
      };
      expect(written.base_url).toBe(sandbox.baseUrl);
      expect(written.keys.find((k) => k.purpose === 'buyer')).toMatchObject({
        key: sandbox.keys.buyer,
        client_id: 'cli_buyer',
        plan: 'Pro',
      });
      expect((await call(`${written.base_url}/me`, { key: written.keys[0]?.key ?? '' })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('rejects a bad --port or --time-scale with a clear message', async () => {
    await expect(
      runSandboxCli({ port: 'eighty', handleSignals: false, write: () => undefined }),
    ).rejects.toThrow(/--port/);
    await expect(
      runSandboxCli({ timeScale: '0', handleSignals: false, write: () => undefined }),
    ).rejects.toThrow(/--time-scale/);
  });
});
