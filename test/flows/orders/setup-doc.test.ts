import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { buildPluginRegistry } from '../../../src/daemon/plugins/builtin.js';
import type { BuyersOptions } from '../../../src/flows/buyers/index.js';

/** The config shown in docs/supplier-setup.md must load as written, options and statements included. */
const DOC = fileURLToPath(new URL('../../../docs/supplier-setup.md', import.meta.url));

function configBlock(markdown: string): string {
  const match = /```yaml\n(api:[\s\S]*?)```/.exec(markdown);
  if (match?.[1] === undefined)
    throw new Error('docs/supplier-setup.md has no yaml block starting with api:');
  return match[1];
}

describe('docs/supplier-setup.md', () => {
  it('shows a config that loads with the orders, order-confirm and buyers flows', () => {
    const yaml = configBlock(readFileSync(DOC, 'utf8'));
    const registry = buildPluginRegistry();
    const load = (text: string) =>
      loadConfig('/etc/supply-sync/supply-sync.yaml', {
        registry: registry,
        env: { ERP_DATABASE_URL: 'mssql://supply_sync:pw@erp-sql01:1433/ERP' },
        readFile: (path) =>
          path === '/etc/supply-sync/supply-sync.yaml' ? text : 'svc_live_0123456789abcdef\n',
      });
    const loaded = load(yaml);
    expect(loaded.warnings).toEqual([]);
    const { jobs } = loaded.config;
    expect(Object.keys(jobs).sort()).toEqual(['buyers', 'order-confirm', 'orders']);
    // The loaded config carries the options as the flows' schemas parsed them, defaults filled in.
    expect(jobs['orders']?.options).toMatchObject({ on_update: 'apply', on_cancel: 'cancel' });
    expect((jobs['buyers']?.options as BuyersOptions | undefined)?.invite.enabled).toBe(false);
    // The flows' option schemas are what checks these blocks: a wrong value is named.
    expect(() => load(yaml.replace('on_update: apply', 'on_update: merge'))).toThrow(/on_update/);
  });
});
