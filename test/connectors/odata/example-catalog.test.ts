import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { startSandbox } from '../../../src/sandbox/index.js';
import { startOdataEmulator, type OdataEmulator } from '../../support/odata-emulator/index.js';
import { runCli } from '../../cli/run-cli.js';
import { sandboxCatalog } from '../../flows/documents/supplier-harness.js';

/**
 * The shipped supplier examples for SAP Business One and Priority run their catalog job as shipped (only the `api`
 * block pointed at the sandbox): every item arrives, and with SAP's price lists mapped the way the catalog job
 * reads the table (API price list -> SAP price list number), the prices arrive too, none held as unmapped.
 */
const SAP_PASSWORD = 'Sap-Example-Pa55';
const PRIORITY_TOKEN = 'pat-example-9a1c';
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({});
  dir = await mkdtemp(join(tmpdir(), 'supply-example-catalog-'));
});
afterAll(async () => {
  await sandbox?.close();
  await rm(dir, { recursive: true, force: true });
});

async function syncCatalog(file: string, env: Record<string, string>): Promise<string> {
  const document = parseDocument(await readFile(join(import.meta.dirname, '../../../config', file), 'utf8'));
  document.set('api', { base_url: sandbox.baseUrl, api_key: '${SUPPLY_API_KEY}' });
  const config = join(dir, file);
  await writeFile(config, document.toString());
  const state = join(dir, `${file}.db`);
  const run = await runCli(['sync', 'catalog', '--config', config], {
    SUPPLY_API_KEY: sandbox.keys.supplier,
    SUPPLY_SYNC_STATE_PATH: state,
    ...env,
  });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return run.stdout + run.stderr;
}

describe('the shipped supplier examples run their catalog job', () => {
  it('config/supplier-sap-b1.yaml: items and price list 1 as pl_standard', { timeout: 90_000 }, async () => {
    const sap: OdataEmulator = await startOdataEmulator({
      erp: 'sap-b1-service-layer',
      users: { manager: SAP_PASSWORD },
    });
    try {
      const output = await syncCatalog('supplier-sap-b1.yaml', {
        SAP_B1_SERVICE_URL: sap.serviceUrl,
        SAP_B1_COMPANY_DB: 'SBODEMOUS',
        SAP_B1_USER: 'manager',
        SAP_B1_PASSWORD: SAP_PASSWORD,
      });
      expect(output).toMatch(/price_lists_unmapped\W+1\b/); // price list 2 is not mapped in the example
      const catalog = await sandboxCatalog(sandbox);
      expect(catalog.products['A100']?.deleted_at).toBeNull();
      const standard = new Map(
        (catalog.prices['pl_standard'] ?? []).map((entry) => [entry.sku, Number(entry.price)]),
      );
      expect(standard.get('A100')).toBe(32.5);
      expect(standard.get('A200')).toBe(18);
    } finally {
      await sap.close();
    }
  });

  it('config/supplier-priority.yaml: the parts', { timeout: 90_000 }, async () => {
    const priority = await startOdataEmulator({ erp: 'priority-rest', tokens: [PRIORITY_TOKEN] });
    try {
      await syncCatalog('supplier-priority.yaml', {
        PRIORITY_SERVICE_URL: priority.serviceUrl,
        PRIORITY_TOKEN,
      });
      const catalog = await sandboxCatalog(sandbox);
      expect(catalog.products['A200']?.deleted_at).toBeNull();
    } finally {
      await priority.close();
    }
  });
});
