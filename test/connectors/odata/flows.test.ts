import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUYER_NAME, DEMO_CUSTOMER_NUMBER } from '../../../src/demo-data/index.js';
import { demoParts } from '../../../connectors/sql/demo-erp/seed.js';
import { startOdataEmulator, type OdataEmulator } from '../../../connectors/odata/emulator/index.js';
import { runCli, STACK_LINE } from '../../cli/run-cli.js';
import { DEMO_SHIP_TO } from '../../flows/orders/harness.js';
import { ODataOracle } from './oracle.js';

/**
 * The supplier flows through the odata connector, as a user runs them: `supply-sync sync <job>` with the embedded
 * sandbox and the SAP Business One preset over the emulator (seeded with the sandbox's demo customer and items).
 * Each job runs against the real flow code and the real connector; the emulator's store shows what reached SAP.
 */
const PASSWORD = 'Flows-Pa55word';
const dir = mkdtempSync(join(tmpdir(), 'supply-odata-flows-'));

function config(serviceUrl: string): string {
  return [
    'api:',
    '  sandbox: embedded',
    'state:',
    `  path: ${join(dir, 'state.db')}`,
    'connectors:',
    '  erp:',
    '    type: odata',
    '    preset: sap-b1-service-layer',
    `    service_url: ${serviceUrl}`,
    '    auth:',
    '      kind: sap-b1-session',
    '      company_db: SBODEMOUS',
    '      username: manager',
    '      password: ${SAP_B1_PASSWORD}',
    'jobs:',
    ...['catalog', 'buyers', 'documents', 'orders'].flatMap((job) => [
      `  ${job}:`,
      `    flow: ${job}`,
      '    connector: erp',
    ]),
    'mappings:',
    '  branches:',
    ...Object.entries(DEMO_SHIP_TO).map(([branch, code]) => `    ${branch}: ${code}`),
    '  price_lists:',
    "    '1': pl_standard",
    '',
  ].join('\n');
}

describe('supplier flows through the odata connector (SAP Business One preset), end to end', () => {
  let emulator: OdataEmulator;
  const oracle = new ODataOracle();
  const file = join(dir, 'supply-sync.yaml');

  beforeAll(async () => {
    emulator = await startOdataEmulator({
      erp: 'sap-b1-service-layer',
      users: { manager: PASSWORD },
      inspect: oracle.inspect,
    });
    emulator.store.seed('BusinessPartners', [
      { CardCode: DEMO_CUSTOMER_NUMBER, CardName: DEMO_BUYER_NAME, CardType: 'cCustomer' },
    ]);
    emulator.store.seed(
      'Items',
      demoParts().map((part) => ({
        ItemCode: part.sku,
        ItemName: part.name,
        SalesUnit: part.unit,
        SalesItem: 'tYES',
        QuantityOnStock: 5,
        ItemPrices: [{ PriceList: 1, Price: Number(part.price) }],
      })),
    );
    // Documents issued in SAP to the sandbox's demo buyer (the seeded ones are for customers no buyer is linked to).
    const [first, second] = demoParts();
    for (const [set, part] of [
      ['Invoices', first],
      ['DeliveryNotes', second],
    ] as const) {
      emulator.store.create(set, {
        CardCode: DEMO_CUSTOMER_NUMBER,
        DocDate: '2026-11-25',
        DocDueDate: '2026-12-25',
        DocCurrency: 'ILS',
        DocumentLines: [{ ItemCode: part?.sku, Quantity: 3, UnitPrice: Number(part?.price) }],
      });
    }
    writeFileSync(file, config(emulator.serviceUrl));
  });
  afterAll(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const job of ['catalog', 'buyers', 'documents', 'orders'] as const) {
    it(`sync ${job} runs ok through the odata connector`, { timeout: 60_000 }, async () => {
      const requestsBefore = oracle.seen.length;
      const { code, stdout, stderr } = await runCli(['sync', job, '--config', file], {
        SAP_B1_PASSWORD: PASSWORD,
      });
      expect(`${stdout}${stderr}`).not.toMatch(STACK_LINE);
      expect(`${stdout}${stderr}`).not.toContain(PASSWORD);
      expect(code, `${stdout}${stderr}`).toBe(0);
      expect(stdout).toMatch(new RegExp(`^${job}: ok`, 'm'));
      expect(oracle.seen.length).toBeGreaterThan(requestsBefore);
      expect(oracle.failures).toEqual([]);
    });
  }

  it("marked the demo buyer's documents sent in SAP and created its orders there", () => {
    const documents = [...emulator.store.all('Invoices'), ...emulator.store.all('DeliveryNotes')];
    const sent = documents.filter((row) => typeof row['U_ApiDocumentId'] === 'string');
    expect(sent.map((row) => row['CardCode'])).toEqual([DEMO_CUSTOMER_NUMBER, DEMO_CUSTOMER_NUMBER]);
    const orders = emulator.store.all('Orders');
    expect(orders.length).toBeGreaterThan(0);
    expect(
      orders.every(
        (row) => row['CardCode'] === DEMO_CUSTOMER_NUMBER && typeof row['U_ApiOrderId'] === 'string',
      ),
    ).toBe(true);
  });
});
