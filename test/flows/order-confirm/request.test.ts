import { describe, expect, it } from 'vitest';
import type { ErpConfirmation } from '../../../src/connector-contract/index.js';
import type { Order } from '../../../src/contract/index.js';
import { buildRequest, orderShows, sameQuantity, skuOfItem } from '../../../src/flows/order-confirm/index.js';
import { orderConfirmOptionsSchema } from '../../../src/flows/order-confirm/options.js';

const options = orderConfirmOptionsSchema.parse({});
const identity = (code: string) => code;

function confirmation(overrides: Partial<ErpConfirmation>): ErpConfirmation {
  return {
    ref: 'CF1',
    apiOrderId: 'ord_1',
    erpOrderNumber: 'SO1',
    kind: 'full',
    reason: null,
    lines: [
      { apiLineId: 'ln_1', itemCode: 'A', quantityConfirmed: '2', substituteItemCode: null, notes: null },
      { apiLineId: 'ln_2', itemCode: 'B', quantityConfirmed: '1', substituteItemCode: null, notes: null },
    ],
    ...overrides,
  };
}

describe('confirmation requests', () => {
  it('sends a plain full confirmation as the empty body', () => {
    expect(buildRequest(confirmation({}), options, identity)).toEqual({ kind: 'confirm', body: {} });
  });

  it('sends partial quantities, substitutes (mapped back to SKUs) and notes per line', () => {
    const skuOf = skuOfItem({ skus: { 'VEG-2': 'ERP-B2' } }, 'skus');
    const request = buildRequest(
      confirmation({
        kind: 'partial',
        lines: [
          {
            apiLineId: 'ln_1',
            itemCode: 'A',
            quantityConfirmed: '0',
            substituteItemCode: null,
            notes: 'none left',
          },
          {
            apiLineId: 'ln_2',
            itemCode: 'B',
            quantityConfirmed: '1',
            substituteItemCode: 'ERP-B2',
            notes: null,
          },
        ],
      }),
      options,
      skuOf,
    );
    expect(request).toEqual({
      kind: 'confirm',
      body: {
        lines: [
          { line_id: 'ln_1', quantity_confirmed: '0', notes: 'none left' },
          { line_id: 'ln_2', quantity_confirmed: '1', substitute_sku: 'VEG-2' },
        ],
      },
    });
  });

  it('rejects with the ERP reason, the default reason, and never more than 500 characters', () => {
    expect(buildRequest(confirmation({ kind: 'reject', reason: 'Closed' }), options, identity)).toEqual({
      kind: 'reject',
      body: { reason: 'Closed' },
    });
    expect(buildRequest(confirmation({ kind: 'reject', reason: '  ' }), options, identity)).toEqual({
      kind: 'reject',
      body: { reason: 'Rejected by the supplier' },
    });
    const long = buildRequest(confirmation({ kind: 'reject', reason: 'x'.repeat(900) }), options, identity);
    expect(long.kind === 'reject' && long.body.reason.length).toBe(500);
  });

  it('refuses a line that is not linked to an order line', () => {
    const unlinked = confirmation({
      kind: 'partial',
      lines: [
        { apiLineId: null, itemCode: 'Z', quantityConfirmed: '1', substituteItemCode: null, notes: null },
      ],
    });
    expect(() => buildRequest(unlinked, options, identity)).toThrow(
      /item Z that is not linked to an order line of ord_1/,
    );
  });
});

describe('reconciling with the order as the API has it', () => {
  const order = (status: string, confirmed: Array<string | null>) =>
    ({
      status,
      lines: confirmed.map((quantity, index) => ({
        id: `ln_${index + 1}`,
        quantity: '2',
        quantity_confirmed: quantity,
      })),
    }) as unknown as Order;

  it('accepts an order that already shows the same decision', () => {
    const partial = {
      kind: 'confirm' as const,
      body: { lines: [{ line_id: 'ln_1', quantity_confirmed: '1.000' }] },
    };
    expect(orderShows(order('partially_approved', ['1', '2']), partial)).toBe(true);
    expect(orderShows(order('partially_approved', ['0', '2']), partial)).toBe(false);
    expect(orderShows(order('cancelled', [null, null]), partial)).toBe(false);
    expect(orderShows(order('approved', ['2', '2']), { kind: 'confirm', body: {} })).toBe(true);
    expect(orderShows(order('rejected', [null]), { kind: 'reject', body: { reason: 'x' } })).toBe(true);
  });

  it('compares quantities as numbers written differently', () => {
    expect(sameQuantity('6', '6.000')).toBe(true);
    expect(sameQuantity('06.50', '6.5')).toBe(true);
    expect(sameQuantity('6.01', '6.1')).toBe(false);
    expect(sameQuantity(null, '0')).toBe(false);
  });
});
