import { sharedErpSuite, type ErpSide } from '../shared-erp-suite.js';
import type { OdataEmulator } from '../../support/odata-emulator/index.js';
import { openOdata } from './fixture.js';

/** The SAP Business One Service Layer's side of the emulator, read from its store. */
function sapSide(emulator: OdataEmulator): ErpSide {
  const orders = () => emulator.store.all('Orders');
  return {
    ordersFor: (id) =>
      orders()
        .filter((row) => row['U_ApiOrderId'] === id)
        .map((row) => ({
          erpOrderNumber: String(row['DocNum']),
          lines: (row['DocumentLines'] as unknown[]).length,
          cancelled: row['Cancelled'] === 'tYES',
        })),
    orderCount: () => orders().length,
  };
}

// DocumentLines are part of the document (a complex collection), not an entity set of their own: the Service
// Layer creates them only inside the order, so the preset writes by deep insert and `batch` does not apply.
{
  sharedErpSuite('shared ERP connector suite: odata, sap-b1-service-layer preset, deep_insert', {
    async open() {
      const fixture = await openOdata('sap-b1-service-layer');
      return { ...fixture, erp: sapSide(fixture.emulator), failures: () => fixture.oracle.failures };
    },
    expected: {
      skus: ['A100', 'A200'],
      prices: 3,
      availableSkus: ['A100'],
      customers: ['C1001', 'C1002'],
      documents: [
        { type: 'invoice', customerNumber: 'C1001', lines: 1 },
        { type: 'delivery_note', customerNumber: 'C1002', lines: 1 },
      ],
    },
  });
}
