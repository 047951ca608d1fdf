import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { buildPluginRegistry } from '../../../src/daemon/plugins/builtin.js';
import { REPO_ROOT } from '../../support/compiled-entry.js';

/**
 * `config validate` on an odata connector whose request timeout is longer than what the lease allows one write:
 * a warning naming the file, the key and the fix (each write is cut at the allowance anyway, so the config is
 * usable). The shipped single-instance configs (SQLite state, no ha) validate without it.
 */
const ENV = {
  SUPPLY_API_KEY: 'svc_test_0123456789abcdef',
  SAP_B1_SERVICE_URL: 'https://b1server:50000/b1s/v2/',
  SAP_B1_COMPANY_DB: 'SBODEMOUS',
  SAP_B1_USER: 'manager',
  SAP_B1_PASSWORD: 'Sap-Pa55word!',
  PRIORITY_SERVICE_URL: 'https://priority.example.com/odata/Priority/tabula.ini/demo/',
  PRIORITY_TOKEN: 'pat-7f3e9c1d2b',
  STATE_URL: 'postgres://supply@db.example.com:5432/supply',
};

function load(name: string, edit: (text: string) => string = (text) => text) {
  const file = join(REPO_ROOT, 'config', name);
  const text = edit(readFileSync(file, 'utf8'));
  return loadConfig(file, { env: ENV, readFile: () => text, registry: buildPluginRegistry() });
}

/** The same config on a shared PostgreSQL state with leader election. */
const withHa =
  (ha: string) =>
  (text: string): string =>
    text.replace(/^state:\n/m, 'state:\n  url: ${STATE_URL}\n') + `\nha:\n${ha}`;

describe('config validate: odata timeout under ha', () => {
  it.each(['supplier-sap-b1.yaml', 'supplier-priority.yaml'])(
    '%s validates without a warning as shipped (one instance)',
    (name) => {
      const loaded = load(name);
      expect(loaded.config.ha).toBeUndefined();
      expect(loaded.warnings.filter((line) => line.includes('timeout'))).toEqual([]);
    },
  );

  it('warns of a timeout longer than the lease allows a write, naming file, key and fix', () => {
    const loaded = load('supplier-sap-b1.yaml', withHa('  lease: 10s\n'));
    const warning = loaded.warnings.find((line) => line.includes('connectors.erp.timeout'));
    expect(warning).toContain('config/supplier-sap-b1.yaml: connectors.erp.timeout (30000ms)');
    expect(warning).toContain('4000ms the lease allows one write');
    expect(warning).toContain('Set connectors.erp.timeout to at most 4000ms');
    expect(warning).toContain('raise ha.lease');
  });

  it('says nothing when the timeout fits the write allowance', () => {
    const loaded = load('supplier-sap-b1.yaml', (text) =>
      withHa('  lease: 10s\n  write_timeout: 4s\n')(text).replace(/^ {4}timeout: 30s$/m, '    timeout: 4s'),
    );
    expect(loaded.warnings.filter((line) => line.includes('connectors.erp.timeout'))).toEqual([]);
  });
});
