import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseConfig, type PluginSchemas } from '../../src/config/index.js';
import { PluginRegistry } from '../../src/plugin/index.js';
import { optionsOnlyFlow } from '../config/fixtures.js';
import { apiChecks } from '../../src/cli/doctor/api-checks.js';
import { buildPluginRegistry } from '../../src/daemon/plugins/builtin.js';
import { formatCheck } from '../../src/cli/doctor/check.js';

function configWith(registry: PluginSchemas) {
  const text = [
    'api:',
    '  sandbox: embedded',
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
    'names missing scopes and a key of the wrong account side, with the fix, from the flows as the build registers them',
    { timeout: 60_000 },
    async () => {
      // The real composition root: side and scopes come from each flow's own definition, nothing set by hand.
      const registry = buildPluginRegistry();
      expect(registry.flow('journal-export')?.side).toBe('buyer');
      expect(registry.flow('orders')?.side).toBe('supplier');
      const lines = (await apiChecks(configWith(registry), registry)).map(formatCheck);
      const text = lines.join('\n');
      expect(text).toMatch(/^OK {3}api {16}GET \/me at embedded sandbox/m);
      expect(text).toMatch(/^FAIL api scopes {9}missing buyer\.accounting:read/m);
      expect(text).toMatch(
        /^FAIL api account {8}jobs journal need a buyer account; this key belongs to a supplier account -> fix: /m,
      );
      expect(text).toMatch(/^OK {3}api rate limit {5}\d+\/min/m);
    },
  );

  it('passes when the enabled jobs need only what the key has', { timeout: 60_000 }, async () => {
    const options = z.strictObject({});
    const registry = new PluginRegistry([
      optionsOnlyFlow('orders', options, { side: 'supplier', scopes: ['supplier.orders:read'] }),
      optionsOnlyFlow('journal-export', options, { side: 'supplier', scopes: [] }),
    ]);
    const results = await apiChecks(configWith(registry), registry);
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(results.map(formatCheck).join('\n')).toMatch(
      /^OK {3}api scopes {9}every scope the enabled jobs need is granted \(supplier\.orders:read\)/m,
    );
  });
});
