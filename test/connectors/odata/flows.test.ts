import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import { DEMO_BUYER_NAME, DEMO_CUSTOMER_NUMBER } from '../../../src/demo-data/index.js';
import { demoParts } from '../../../connectors/sql/demo-erp/seed.js';
import {
  startOdataEmulator,
  type EmulatedErp,
  type OdataEmulator,
} from '../../support/odata-emulator/index.js';
import { runCli, STACK_LINE } from '../../cli/run-cli.js';
import { DEMO_SHIP_TO, type Sandbox } from '../../flows/orders/harness.js';
import { ODataOracle } from './oracle.js';

/**
 * The supplier flows through the odata connector, as a user runs them: `supply-sync sync <job>` against a sandbox
 * (started here, so the test reads what reached it) and each preset over its emulator, seeded with the sandbox's
 * demo customer and items. Each job runs the real flow code and the real connector; the emulator's store shows
 * what reached the ERP, the sandbox's state what reached the API.
 */
const PASSWORD = 'Flows-Pa55word';
const parts = demoParts();
/** Items out of stock in the ERP: every third one. */
const outOfStock = (index: number) => index % 3 === 2;

interface Preset {
  readonly erp: EmulatedErp;
  readonly auth: readonly string[];
  /** The ERP's master data for the sandbox's demo buyer and items. */
  readonly seed: (emulator: OdataEmulator) => void;
  /** Documents issued in the ERP to the demo buyer. */
  readonly documents: ReadonlyArray<{ set: string; entity: Record<string, unknown> }>;
  readonly sentMark: string;
  /** The entity sets of the demo buyer's documents that reach the API. */
  readonly sentDocuments: readonly string[];
  readonly orders: string;
  readonly orderFields: { customer: string; apiOrderId: string };
  /** What `sync catalog` reads: prices and availability where the preset maps them. */
  readonly readsPrices: boolean;
}

const SAP: Preset = {
  erp: 'sap-b1-service-layer',
  auth: ['kind: sap-b1-session', 'company_db: SBODEMOUS', 'username: manager', 'password: ${ERP_PASSWORD}'],
  seed: (emulator) => {
    emulator.store.seed('BusinessPartners', [
      { CardCode: DEMO_CUSTOMER_NUMBER, CardName: DEMO_BUYER_NAME, CardType: 'cCustomer' },
    ]);
    emulator.store.seed(
      'Items',
      parts.map((part, index) => ({
        ItemCode: part.sku,
        ItemName: part.name,
        SalesUnit: part.unit,
        SalesItem: 'tYES',
        QuantityOnStock: outOfStock(index) ? 0 : 5,
        ItemPrices: [{ PriceList: 1, Price: Number(part.price) }],
      })),
    );
  },
  documents: (['Invoices', 'DeliveryNotes'] as const).map((set, index) => ({
    set,
    entity: {
      CardCode: DEMO_CUSTOMER_NUMBER,
      DocDate: '2026-11-25',
      DocDueDate: '2026-12-25',
      DocCurrency: 'ILS',
      DocumentLines: [{ ItemCode: parts[index]?.sku, Quantity: 3, UnitPrice: Number(parts[index]?.price) }],
    },
  })),
  sentMark: 'U_ApiDocumentId',
  sentDocuments: ['Invoices', 'DeliveryNotes'],
  orders: 'Orders',
  orderFields: { customer: 'CardCode', apiOrderId: 'U_ApiOrderId' },
  readsPrices: true,
};

const PRIORITY: Preset = {
  erp: 'priority-rest',
  auth: ['kind: basic', 'username: apiuser', 'password: ${ERP_PASSWORD}'],
  seed: (emulator) => {
    emulator.store.seed('CUSTOMERS', [{ CUSTNAME: DEMO_CUSTOMER_NUMBER, CUSTDES: DEMO_BUYER_NAME }]);
    emulator.store.seed(
      'LOGPART',
      parts.map((part) => ({ PARTNAME: part.sku, PARTDES: part.name, UNITNAME: part.unit })),
    );
  },
  documents: [
    {
      set: 'AINVOICES',
      entity: {
        IVTYPE: 'A',
        DEBIT: 'D',
        FINAL: 'Y',
        IVDATE: '2026-11-25T00:00:00+02:00',
        CUSTNAME: DEMO_CUSTOMER_NUMBER,
        CODE: 'ILS',
        AINVOICEITEMS_SUBFORM: [{ PARTNAME: parts[0]?.sku, TQUANT: 3, PRICE: Number(parts[0]?.price) }],
      },
    },
    {
      set: 'DOCUMENTS_D',
      entity: {
        TYPE: 'D',
        CURDATE: '2026-11-25T00:00:00+02:00',
        CUSTNAME: DEMO_CUSTOMER_NUMBER,
        TRANSORDER_D_SUBFORM: [{ PARTNAME: parts[1]?.sku, TQUANT: 3, PRICE: Number(parts[1]?.price) }],
      },
    },
  ],
  sentMark: 'ZSSY_APIDOCID',
  // Not the delivery note: the preset reads only DOCUMENTS_D's TOTPRICE, with VAT, so the total before VAT it
  // derives differs from the sum of the lines and the API refuses it (a known gap, connectors/odata/README.md).
  sentDocuments: ['AINVOICES'],
  orders: 'ORDERS',
  orderFields: { customer: 'CUSTNAME', apiOrderId: 'ZSSY_APIORDERID' },
  readsPrices: false,
};

function config(preset: Preset, dir: string, sandbox: Sandbox, serviceUrl: string): string {
  return [
    'api:',
    `  base_url: ${sandbox.baseUrl}`,
    '  api_key: ${SUPPLY_API_KEY}',
    'state:',
    `  path: ${join(dir, 'state.db')}`,
    'connectors:',
    '  erp:',
    '    type: odata',
    `    preset: ${preset.erp}`,
    `    service_url: ${serviceUrl}`,
    '    auth:',
    ...preset.auth.map((line) => `      ${line}`),
    'jobs:',
    ...['catalog', 'buyers', 'documents', 'orders'].flatMap((job) => [
      `  ${job}:`,
      `    flow: ${job}`,
      '    connector: erp',
    ]),
    'mappings:',
    '  branches:',
    ...Object.entries(DEMO_SHIP_TO).map(([branch, code]) => `    ${branch}: ${code}`),
    // API price list id -> ERP price list code (SAP's PriceList 1).
    '  price_lists:',
    "    pl_standard: '1'",
    '',
  ].join('\n');
}

interface SandboxProduct {
  name: string;
  unit: string;
  available: boolean;
  deleted_at: string | null;
}
interface SandboxPrice {
  sku: string;
  price: string;
}
interface SandboxBuyer {
  customer_number: string | null;
  erp_ref: string | null;
}

for (const preset of [SAP, PRIORITY]) {
  describe(`supplier flows through the odata connector (${preset.erp} preset), end to end`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'supply-odata-flows-'));
    const file = join(dir, 'supply-sync.yaml');
    const oracle = new ODataOracle();
    let emulator: OdataEmulator;
    let sandbox: Sandbox;
    const state = async () => sandbox.control.state();
    const sync = async (job: string) => {
      const requestsBefore = oracle.seen.length;
      const { code, stdout, stderr } = await runCli(['sync', job, '--config', file], {
        ERP_PASSWORD: PASSWORD,
        SUPPLY_API_KEY: sandbox.keys.supplier,
      });
      expect(`${stdout}${stderr}`).not.toMatch(STACK_LINE);
      expect(`${stdout}${stderr}`).not.toContain(PASSWORD);
      expect(code, `${stdout}${stderr}`).toBe(0);
      expect(stdout).toMatch(new RegExp(`^${job}: ok`, 'm'));
      expect(oracle.seen.length).toBeGreaterThan(requestsBefore);
      expect(oracle.failures).toEqual([]);
    };

    beforeAll(async () => {
      sandbox = await startSandbox({});
      emulator = await startOdataEmulator({
        erp: preset.erp,
        users: preset.erp === 'sap-b1-service-layer' ? { manager: PASSWORD } : { apiuser: PASSWORD },
        inspect: oracle.inspect,
      });
      preset.seed(emulator);
      for (const { set, entity } of preset.documents) emulator.store.create(set, entity);
      writeFileSync(file, config(preset, dir, sandbox, emulator.serviceUrl));
    });
    afterAll(async () => {
      await emulator?.close();
      await sandbox?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it(
      'sync catalog puts the ERP items, prices and availability in the API',
      { timeout: 60_000 },
      async () => {
        const pricesOf = (readout: Record<string, unknown>) =>
          new Map(
            ((readout['prices'] as Record<string, SandboxPrice[]>)['pl_standard'] ?? []).map((entry) => [
              entry.sku,
              Number(entry.price),
            ]),
          );
        const productsOf = (readout: Record<string, unknown>) =>
          readout['products'] as Record<string, SandboxProduct>;
        const before = await state();
        await sync('catalog');
        const after = await state();
        const products = productsOf(after);
        const prices = pricesOf(after);
        for (const [index, part] of parts.entries()) {
          expect(products[part.sku], part.sku).toMatchObject({
            name: part.name,
            unit: part.unit,
            deleted_at: null,
          });
          if (preset.readsPrices) {
            expect(products[part.sku]?.available, part.sku).toBe(!outOfStock(index));
            expect(prices.get(part.sku), part.sku).toBe(Number(part.price));
          } else {
            // No prices or availability mapping: the prices stay as the API had them, and every product the
            // ERP lists is shown available.
            expect(products[part.sku]?.available, part.sku).toBe(true);
            expect(prices.get(part.sku), part.sku).toBe(pricesOf(before).get(part.sku));
          }
        }
        if (preset.readsPrices) {
          // The seed's prices differ from the sandbox's, and some items are out of stock: the run changed both.
          expect(parts.some((part) => pricesOf(before).get(part.sku) !== Number(part.price))).toBe(true);
          expect(parts.some((_, index) => outOfStock(index))).toBe(true);
        }
      },
    );

    it('sync buyers links the demo buyer to its ERP customer', { timeout: 60_000 }, async () => {
      const linked = async () =>
        Object.values((await state())['supplierBuyers'] as Record<string, SandboxBuyer>)
          .filter((buyer) => buyer.erp_ref !== null)
          .map((buyer) => [buyer.customer_number, buyer.erp_ref]);
      expect(await linked()).toEqual([]);
      await sync('buyers');
      expect(await linked()).toEqual([[DEMO_CUSTOMER_NUMBER, DEMO_CUSTOMER_NUMBER]]);
    });

    it(
      "sync documents and orders mark the demo buyer's documents sent and create its orders in the ERP",
      { timeout: 120_000 },
      async () => {
        await sync('documents');
        await sync('orders');
        const documents = preset.documents.flatMap(({ set }) => emulator.store.all(set));
        const sent = documents.filter((row) => typeof row[preset.sentMark] === 'string');
        expect(sent.map((row) => row[preset.orderFields.customer])).toEqual(
          preset.sentDocuments.map(() => DEMO_CUSTOMER_NUMBER),
        );
        const sentSets = preset.documents
          .map(({ set }) => set)
          .filter((set) => emulator.store.all(set).some((row) => typeof row[preset.sentMark] === 'string'));
        expect(sentSets).toEqual(preset.sentDocuments);
        const orders = emulator.store.all(preset.orders);
        expect(orders.length).toBeGreaterThan(0);
        const { customer, apiOrderId } = preset.orderFields;
        expect(
          orders.filter((row) => typeof row[apiOrderId] === 'string').map((row) => row[customer]),
        ).toEqual(
          orders.filter((row) => typeof row[apiOrderId] === 'string').map(() => DEMO_CUSTOMER_NUMBER),
        );
      },
    );
  });
}
