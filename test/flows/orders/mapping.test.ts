import { describe, expect, it } from 'vitest';
import type { Order } from '../../../src/contract/index.js';
import { OrderMapper } from '../../../src/flows/orders/mapping.js';
import { ordersOptionsSchema } from '../../../src/flows/orders/options.js';

function order(overrides: Partial<Order> = {}): Order {
  return {
    id: 'ord_1',
    number: 'PO-1',
    status: 'pending_approval',
    buyer: { id: 'byr_1', name: 'Cafe X', customer_number: null },
    supplier: { id: 'sup_1', name: 'Supplier' },
    branch: { id: 'br_1', name: 'Main' },
    purchase_type: 'FC',
    sent_at: '2026-03-26T22:30:00Z',
    delivery_date: '2026-03-29',
    delivery_window: { from: '06:00', to: '10:00' },
    currency: 'ILS',
    totals: { before_vat: '10.00', vat: '1.80', with_vat: '11.80' },
    lines: [
      {
        id: 'ln_1',
        sku: 'VEG-1',
        name: 'Tomato',
        quantity: '2.5',
        unit_price: '4.00',
        total: '10.00',
        unit: 'kg',
      },
    ],
    created_at: '2026-03-26T22:00:00Z',
    updated_at: '2026-03-26T22:30:00Z',
    ...overrides,
  } as Order;
}

const options = ordersOptionsSchema.parse({});

describe('order mapping', () => {
  it('prefers the customer_number, then the erp_ref, then the mapping table', async () => {
    const lookups: string[] = [];
    const mapper = new OrderMapper(
      options,
      { buyers: { byr_1: 'C-MAP' }, branches: { br_1: 'S1' } },
      (id) => {
        lookups.push(id);
        return Promise.resolve(id === 'byr_ref' ? 'C-REF' : null);
      },
    );
    const direct = await mapper.map(order({ buyer: { id: 'byr_1', name: 'X', customer_number: 'C-1' } }));
    expect(direct.ok && direct.order.customerNumber).toBe('C-1');
    expect(lookups).toEqual([]);
    const byRef = await mapper.map(order({ buyer: { id: 'byr_ref', name: 'X', customer_number: null } }));
    expect(byRef.ok && byRef.order.customerNumber).toBe('C-REF');
    const byTable = await mapper.map(order());
    expect(byTable.ok && byTable.order.customerNumber).toBe('C-MAP');
  });

  it('names every missing value in one reason', async () => {
    const mapper = new OrderMapper(
      ordersOptionsSchema.parse({ unmapped_item: 'dead_letter', unmapped_purchase_type: 'dead_letter' }),
      { branches: {}, purchase_types: {} },
      () => Promise.resolve(null),
    );
    const result = await mapper.map(order());
    expect(result).toEqual({
      ok: false,
      problems: [
        'no ERP customer for buyer byr_1 "Cafe X" (customer_number null, erp_ref null, not in mappings.buyers)',
        'no ship-to for branch br_1 "Main" (not in mappings.branches)',
        'no ERP purchase type for "FC" (not in mappings.purchase_types)',
        'no ERP item for SKU VEG-1 "Tomato" (not in mappings.skus)',
      ],
    });
  });

  it('names the one mapping an order lacks, once for many lines, and none for an empty SKU', async () => {
    const mapper = new OrderMapper(
      ordersOptionsSchema.parse({ unmapped_item: 'dead_letter' }),
      { buyers: { byr_1: 'C' }, branches: { br_1: 'S' }, skus: {} },
      () => Promise.resolve(null),
    );
    const line = order().lines?.[0];
    const twoLines = await mapper.map(order({ lines: [line, { ...line, id: 'ln_2' }] as Order['lines'] }));
    expect(twoLines).toEqual({
      ok: false,
      problems: ['no ERP item for SKU VEG-1 "Tomato" (not in mappings.skus)'],
      missing: { kind: 'SKU', table: 'skus', key: 'VEG-1', pickup: 'retry' },
    });
    const blank = await mapper.map(order({ lines: [{ ...line, sku: '' }] as Order['lines'] }));
    expect(blank).toEqual({
      ok: false,
      problems: ['no ERP item for SKU  "Tomato" (not in mappings.skus)'],
      missing: undefined,
    });
  });

  it('maps values through the tables and keeps amounts as exact strings', async () => {
    const mapper = new OrderMapper(
      options,
      {
        buyers: { byr_1: 'C-9' },
        branches: { br_1: 'SHIP-1' },
        skus: { 'VEG-1': '40017' },
        purchase_types: { FC: 'FOOD' },
      },
      () => Promise.resolve(null),
    );
    const result = await mapper.map(order());
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(result.order).toMatchObject({
      customerNumber: 'C-9',
      shipTo: 'SHIP-1',
      purchaseType: 'FOOD',
      deliveryDate: '2026-03-29',
      windowFrom: '06:00',
      totalWithVat: '11.80',
      lines: [
        {
          lineNumber: 1,
          apiLineId: 'ln_1',
          itemCode: '40017',
          quantity: '2.5',
          unitPrice: '4.00',
          unit: 'kg',
        },
      ],
    });
  });

  it('dates the order in the configured time zone, across the DST change', async () => {
    const mapper = new OrderMapper(options, { buyers: { byr_1: 'C' }, branches: { br_1: 'S' } }, () =>
      Promise.resolve(null),
    );
    // 22:30 UTC on 26 March 2026 is 01:30 on 27 March in Israel (summer time starts that night).
    const late = await mapper.map(order({ sent_at: '2026-03-26T22:30:00Z' }));
    expect(late.ok && late.order.orderDate).toBe('2026-03-27');
    const utc = new OrderMapper(
      ordersOptionsSchema.parse({ time_zone: 'UTC' }),
      { buyers: { byr_1: 'C' }, branches: {} },
      () => Promise.resolve(null),
    );
    const sameInstant = await utc.map(
      order({ sent_at: '2026-03-26T22:30:00Z', branch: undefined } as Partial<Order>),
    );
    expect(sameInstant.ok && sameInstant.order.orderDate).toBe('2026-03-26');
  });

  it('passes the branch id when no ship-to table is configured', async () => {
    const mapper = new OrderMapper(options, { buyers: { byr_1: 'C' } }, () => Promise.resolve(null));
    const result = await mapper.map(order());
    expect(result.ok && result.order.shipTo).toBe('br_1');
  });
});

describe('orders options', () => {
  it('fills defaults and rejects unknown keys', () => {
    expect(ordersOptionsSchema.parse({})).toMatchObject({
      on_update: 'apply',
      on_cancel: 'cancel',
      acknowledge: true,
    });
    expect(() => ordersOptionsSchema.parse({ on_updates: 'apply' })).toThrow(/on_updates/);
    expect(() => ordersOptionsSchema.parse({ on_update: 'merge' })).toThrow();
  });
});
