import type { Connector } from '../../../src/connector-contract/connector.js';
import type { ErpOrder } from '../../../src/connector-contract/orders.js';
import { odataConfigSchema, odataConnectorDefinition } from '../../../connectors/odata/index.js';
import {
  startOdataEmulator,
  type EmulatedErp,
  type EmulatorOptions,
  type OdataEmulator,
} from '../../support/odata-emulator/index.js';
import { ODataOracle } from './oracle.js';

export const SAP_PASSWORD = 'Sap-Pa55word!';
export const PRIORITY_PASSWORD = 'Pri-Pa55word!';
export const PRIORITY_TOKEN = 'pat-7f3e9c1d2b';

export interface OdataFixture {
  readonly emulator: OdataEmulator;
  readonly connector: Connector;
  readonly oracle: ODataOracle;
  close(): Promise<void>;
}

/** The connector block for an emulator, with the preset of that ERP; `block` overrides any key. */
export function blockFor(
  erp: EmulatedErp,
  serviceUrl: string,
  block: Record<string, unknown> = {},
): Record<string, unknown> {
  const auth =
    erp === 'sap-b1-service-layer'
      ? { kind: 'sap-b1-session', company_db: 'SBODEMOUS', username: 'manager', password: SAP_PASSWORD }
      : { kind: 'basic', username: 'apiuser', password: PRIORITY_PASSWORD };
  return { preset: erp, service_url: serviceUrl, auth, ...block };
}

/** An emulated ERP, its oracle, and an odata connector over it with the ERP's preset. */
export async function openOdata(
  erp: EmulatedErp,
  options: { block?: Record<string, unknown>; emulator?: Partial<EmulatorOptions>; name?: string } = {},
): Promise<OdataFixture> {
  const oracle = new ODataOracle();
  const emulator = await startOdataEmulator({
    erp,
    users: erp === 'sap-b1-service-layer' ? { manager: SAP_PASSWORD } : { apiuser: PRIORITY_PASSWORD },
    tokens: [PRIORITY_TOKEN],
    inspect: oracle.inspect,
    ...options.emulator,
  });
  const config = odataConfigSchema.parse(blockFor(erp, emulator.serviceUrl, options.block));
  const connector = await odataConnectorDefinition.create(config, {
    name: options.name ?? 'erp',
    baseDir: '.',
  });
  return {
    emulator,
    connector,
    oracle,
    close: async () => {
      await connector.close();
      await emulator.close();
    },
  };
}

export function order(apiOrderId: string, itemCodes: readonly string[] = ['A100', 'A200']): ErpOrder {
  return {
    apiOrderId,
    orderNumber: `PO-${apiOrderId}`,
    customerNumber: 'C1001',
    shipTo: null,
    purchaseType: null,
    orderDate: '2026-11-22',
    deliveryDate: '2026-11-24',
    windowFrom: null,
    windowTo: null,
    currency: 'ILS',
    totalBeforeVat: '100.00',
    vat: '18.00',
    totalWithVat: '118.00',
    notes: 'leave at the back door',
    lines: itemCodes.map((itemCode, index) => ({
      lineNumber: index + 1,
      apiLineId: `${apiOrderId}_l${index + 1}`,
      itemCode,
      description: `item ${itemCode}`,
      quantity: '2.500',
      unit: null,
      unitPrice: '20.00',
      discountPct: null,
      total: '50.00',
      vatExempt: false,
      notes: null,
    })),
  };
}
