import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { odataConfigSchema, odataConnectorDefinition } from '../../../connectors/odata/index.js';
import { resolveEntities } from '../../../connectors/odata/presets.js';

/**
 * The Priority prices and availability override shown in connectors/odata/README.md and docs/supplier-setup.md is
 * a valid `odata` block: it parses with the connector's config schema, its overrides resolve over the preset, and
 * the connector it configures offers the catalog. And the docs' statement that the connector offers no order
 * confirmations holds for both presets.
 */
const ROOT = join(import.meta.dirname, '../../..');
const MARKER = '<!-- priority-prices-override: parsed by test/connectors/odata/docs-snippets.test.ts -->';

function snippet(file: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(MARKER);
  expect(at, `${file} has the marked snippet`).toBeGreaterThanOrEqual(0);
  const match = /```yaml\n([\s\S]*?)```/.exec(text.slice(at + MARKER.length));
  expect(match, `${file}: a yaml block follows the marker`).not.toBeNull();
  return match?.[1] ?? '';
}

describe('the Priority prices and availability override in the docs', () => {
  const files = ['connectors/odata/README.md', 'docs/supplier-setup.md'];

  for (const file of files) {
    it(`${file}: the snippet parses with the odata config schema and resolves over the preset`, () => {
      const document = parse(snippet(file)) as { connectors: { erp: Record<string, unknown> } };
      const { type, ...block } = document.connectors.erp;
      expect(type).toBe('odata');
      const config = odataConfigSchema.parse(block);
      const { entities, origins } = resolveEntities(config.preset, config.entities, 'connectors.erp');
      expect(entities.catalog?.products.entity_set).toBe('LOGPART');
      expect(entities.catalog?.prices).toMatchObject({
        entity_set: 'ZSSY_PARTPRICES',
        fields: { sku: 'PARTNAME', price_list: 'ZSSY_PLNAME', price: 'ZSSY_PRICE' },
      });
      expect(entities.catalog?.availability?.fields['available']).toEqual({
        path: 'ZSSY_BALANCE',
        above_zero: true,
      });
      // doctor names the config key, not the preset, for a name set here.
      expect(origins.get('catalog.prices.entity_set')).toBe(
        'connectors.erp.entities.catalog.prices.entity_set',
      );
      expect(odataConnectorDefinition.capabilitiesFor?.(config)).toContain('catalogSource');
    });
  }

  it('is the same in both files', () => {
    expect(snippet(files[0] ?? '')).toBe(snippet(files[1] ?? ''));
  });
});

describe('order confirmations through the odata connector', () => {
  for (const preset of ['sap-b1-service-layer', 'priority-rest'] as const) {
    it(`${preset}: not offered, as the docs say`, () => {
      const config = odataConfigSchema.parse({
        preset,
        service_url: 'https://erp.example.com/odata/',
        auth: { kind: 'basic', username: 'u', password: 'p' },
      });
      const offered = odataConnectorDefinition.capabilitiesFor?.(config) ?? [];
      expect(offered).toEqual(['orderSink', 'documentSource', 'catalogSource', 'customerDirectory']);
      expect(offered).not.toContain('confirmationSource');
    });
  }
});
