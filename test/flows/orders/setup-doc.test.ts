import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { buildRegistries, builtinFlows } from '../../../src/daemon/builtin.js';
import type { FlowDefinition } from '../../../src/daemon/flow-definition.js';
import { buyersFlow } from '../../../src/flows/buyers/index.js';
import { orderConfirmFlow } from '../../../src/flows/order-confirm/index.js';
import { ordersFlow } from '../../../src/flows/orders/index.js';

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
    const mine = [ordersFlow, orderConfirmFlow, buyersFlow] as unknown as FlowDefinition[];
    const others = builtinFlows().filter((flow) => !mine.some((own) => own.flow === flow.flow));
    const registries = buildRegistries(undefined, [...others, ...mine]);
    const load = (text: string) =>
      loadConfig('/etc/supply-sync/supply-sync.yaml', {
        registry: registries.config,
        env: { ERP_DATABASE_URL: 'mssql://supply_sync:pw@erp-sql01:1433/ERP' },
        readFile: (path) =>
          path === '/etc/supply-sync/supply-sync.yaml' ? text : 'svc_live_0123456789abcdef\n',
      });
    const loaded = load(yaml);
    expect(loaded.warnings).toEqual([]);
    const jobs = loaded.config.jobs as Record<string, { flow: string; options: Record<string, unknown> }>;
    expect(Object.keys(jobs).sort()).toEqual(['buyers', 'order-confirm', 'orders']);
    expect(ordersFlow.options.parse(jobs['orders']?.options)).toMatchObject({
      on_update: 'apply',
      on_cancel: 'cancel',
    });
    expect(buyersFlow.options.parse(jobs['buyers']?.options).invite.enabled).toBe(false);
    // The flows' option schemas are what checks these blocks: a wrong value is named.
    expect(() => load(yaml.replace('on_update: apply', 'on_update: merge'))).toThrow(/on_update/);
  });
});
