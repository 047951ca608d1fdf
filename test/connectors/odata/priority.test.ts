import { sharedErpSuite, type ErpSide } from '../shared-erp-suite.js';
import type { OdataEmulator } from '../../support/odata-emulator/index.js';
import { openOdata } from './fixture.js';

/** Priority's side of the emulator, read from its store. */
function prioritySide(emulator: OdataEmulator): ErpSide {
  const orders = () => emulator.store.all('ORDERS');
  return {
    ordersFor: (id) =>
      orders()
        .filter((row) => row['ZSSY_APIORDERID'] === id)
        .map((row) => ({
          erpOrderNumber: String(row['ORDNAME']),
          lines: ((row['ORDERITEMS_SUBFORM'] as unknown[] | undefined) ?? []).length,
          cancelled: row['ORDSTATUSDES'] === 'Canceled',
        })),
    orderCount: () => orders().length,
  };
}

// deep_insert only: Priority's $batch does not roll back, so its preset refuses write: batch (faults.test.ts).
for (const write of ['deep_insert'] as const) {
  sharedErpSuite(`shared ERP connector suite: odata, priority-rest preset, ${write}`, {
    async open() {
      const fixture = await openOdata('priority-rest', { block: { entities: { orders: { write } } } });
      return { ...fixture, erp: prioritySide(fixture.emulator), failures: () => fixture.oracle.failures };
    },
    expected: {
      skus: ['A100', 'A200'],
      prices: 0,
      availableSkus: [],
      customers: ['C1001', 'C1002'],
      documents: [
        { type: 'invoice', customerNumber: 'C1001', lines: 1 },
        { type: 'delivery_note', customerNumber: 'C1002', lines: 1 },
      ],
    },
  });
}
