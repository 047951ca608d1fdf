import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseConfig, type PluginSchemas } from '../../src/config/index.js';
import { PluginRegistry } from '../../src/plugin/index.js';
import { optionsOnlyFlow } from '../config/fixtures.js';
import { apiChecks } from '../../src/cli/doctor/api-checks.js';
import { buildPluginRegistry } from '../../src/daemon/plugins/builtin.js';
import { formatCheck } from '../../src/cli/doctor/check.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { writeDemoConfig } from '../support/demo-config.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-doctor-api-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configWith(registry: PluginSchemas, configured?: { baseUrl: string; key: string }) {
  const api =
    configured === undefined
      ? ['  sandbox: embedded']
      : [`  base_url: ${configured.baseUrl}`, `  api_key: ${configured.key}`];
  const text = [
    'api:',
    ...api,
    'connectors:',
    '  erp:',
    '    type: demo-erp',
    'jobs:',
    '  journal:',
    '    flow: journal-export',
    '    connector: erp',
    "    schedule: '0 1 * * *'",
    '  orders:',
    '    flow: orders',
    '    connector: erp',
    '  backfill:',
    '    flow: orders',
    '    connector: erp',
    '    enabled: false',
    '',
  ].join('\n');
  return parseConfig('c.yaml', text, { env: {}, registry }).config;
}

describe('doctor API checks against the embedded sandbox (GET /me over HTTP)', () => {
  it(
    "checks each job with its side's key, as the daemon runs it: the supplier key for orders, the buyer key for journal",
    { timeout: 60_000 },
    async () => {
      // The real composition root: side and scopes come from each flow's own definition, nothing set by hand.
      const registry = buildPluginRegistry();
      expect(registry.flow('journal-export')?.side).toBe('buyer');
      expect(registry.flow('orders')?.side).toBe('supplier');
      const results = await apiChecks(configWith(registry), registry, 'api.api_key');
      const text = results.map(formatCheck).join('\n');
      expect(results.filter((r) => r.status === 'fail')).toEqual([]);
      expect(text).toMatch(
        /^OK {3}api {16}GET \/me at embedded sandbox at \S+ \(key of jobs orders\): .+ \(supplier\)/m,
      );
      expect(text).toMatch(
        /^OK {3}api {16}GET \/me at embedded sandbox at \S+ \(key of jobs journal\): .+ \(buyer\)/m,
      );
      expect(text).toMatch(
        /^OK {3}api scopes {9}every scope the enabled jobs need is granted \(supplier\.orders:read/m,
      );
      expect(text).toMatch(
        /^OK {3}api scopes {9}every scope the enabled jobs need is granted \(buyer\.accounting:read/m,
      );
      expect(text).toMatch(/^OK {3}api rate limit {5}\d+\/min/m);
    },
  );

  it(
    'names missing scopes and a configured key of the wrong account side, with the fix',
    { timeout: 60_000 },
    async () => {
      const registry = buildPluginRegistry();
      const sandbox = await startSandbox();
      try {
        const text = (
          await apiChecks(
            configWith(registry, { baseUrl: sandbox.baseUrl, key: sandbox.keys.supplier }),
            registry,
            'api.api_key',
          )
        )
          .map(formatCheck)
          .join('\n');
        expect(text).toMatch(/^OK {3}api {16}GET \/me at http:\/\/127\.0\.0\.1:\d+\/v2: .+ \(supplier\)/m);
        expect(text).toMatch(/^FAIL api scopes {9}missing buyer\.accounting:read/m);
        expect(text).toMatch(
          /^FAIL api account {8}jobs journal need a buyer account; this key belongs to a supplier account -> fix: /m,
        );
      } finally {
        await sandbox.close();
      }
    },
  );

  it('passes when the enabled jobs need only what the key has', { timeout: 60_000 }, async () => {
    const options = z.strictObject({});
    const registry = new PluginRegistry([
      optionsOnlyFlow('orders', options, { side: 'supplier', scopes: ['supplier.orders:read'] }),
      optionsOnlyFlow('journal-export', options, { side: 'supplier', scopes: [] }),
    ]);
    const results = await apiChecks(configWith(registry), registry, 'api.api_key');
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(results.map(formatCheck).join('\n')).toMatch(
      /^OK {3}api scopes {9}every scope the enabled jobs need is granted \(supplier\.orders:read\)/m,
    );
  });
});

describe('doctor on the demo config (the compiled CLI)', () => {
  it(
    "is OK, and checks the keys of the daemon's own embedded sandbox (kept beside the state file) without changing it",
    { timeout: 90_000 },
    async () => {
      const file = await writeDemoConfig(dir);
      // What a demo daemon leaves beside its state file: its sandbox's data, with the keys it hands each side.
      mkdirSync(join(dir, 'state', 'demo-expenses'), { recursive: true });
      const sandboxFile = join(dir, 'state', 'sandbox.db');
      const daemonSandbox = await startSandbox({ statePath: sandboxFile });
      const { supplier, buyer } = daemonSandbox.keys;
      await daemonSandbox.close();
      const digest = () => createHash('sha256').update(readFileSync(sandboxFile)).digest('hex');
      const before = digest();

      const { code, stdout, stderr } = await runCli(['doctor', '--config', file]);
      expect(stdout).not.toMatch(/^FAIL/m);
      expect(stderr).not.toContain('doctor found problems');
      expect(code).toBe(0);
      expect(stdout).toMatch(/^OK {3}api {16}.*\(key of jobs expenses, journal\): .+ \(buyer\)/m);
      expect(stdout).toContain(`key ${supplier.slice(0, 13)}...`);
      expect(stdout).toContain(`key ${buyer.slice(0, 13)}...`);
      expect(stdout).toContain(sandboxFile);
      expect(digest()).toBe(before);
    },
  );
});
