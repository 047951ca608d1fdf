/** Sales records to API bodies: money formatting, line numbering, keys and versions. */
import { describe, expect, it } from 'vitest';
import type { ItemSaleRecord } from '../../../src/connector-contract/index.js';
import { itemSaleItem, money, numberLines, zReportItem } from '../../../src/flows/sales-push/index.js';

function sale(
  zNumber: string,
  lineNumber: number | null,
  itemCode: string,
  branchCode = 'TLV01',
): ItemSaleRecord {
  return {
    branchCode,
    zNumber,
    lineNumber,
    valueDate: '2026-11-20T12:00:00+02:00',
    itemCode,
    itemName: itemCode,
    quantity: '1',
    unitPrice: '5',
    total: '5',
    fields: {},
  };
}

describe('sales bodies', () => {
  it('writes money with two fraction digits and leaves other values for the API to judge', () => {
    expect([money('12'), money('12.5'), money('-3.05'), money(' 7.10 ')]).toEqual([
      '12.00',
      '12.50',
      '-3.05',
      '7.10',
    ]);
    expect([money('1.234'), money('abc'), money('')]).toEqual(['1.234', 'abc', '']);
  });

  it('numbers lines without a number after the highest one of their Z-report, per branch', () => {
    const numbered = numberLines([
      sale('1', null, 'a'),
      sale('1', 5, 'b'),
      sale('1', null, 'c'),
      sale('2', null, 'd'),
      sale('1', null, 'e', 'HRZ02'),
    ]);
    expect(numbered.map((s) => `${s.branchCode}/${s.zNumber}/${s.lineNumber}:${s.itemCode}`)).toEqual([
      'TLV01/1/6:a',
      'TLV01/1/5:b',
      'TLV01/1/7:c',
      'TLV01/2/1:d',
      'HRZ02/1/1:e',
    ]);
    // The same input numbers the same way, so a re-sent batch updates the same lines.
    expect(numberLines([sale('1', null, 'a'), sale('1', 5, 'b')])).toEqual(numbered.slice(0, 2));
  });

  it('keys items as the API does and versions them by content', () => {
    const item = itemSaleItem(sale('Z-1', 3, 'x'), 'br_tlv');
    expect(item.key).toBe('br_tlv/Z-1/3');
    expect(item.body).toMatchObject({
      branch_id: 'br_tlv',
      line_number: 3,
      unit_price: '5.00',
      total: '5.00',
    });
    expect(itemSaleItem(sale('Z-1', 3, 'x'), 'br_tlv').version).toBe(item.version);
    expect(itemSaleItem(sale('Z-1', 3, 'y'), 'br_tlv').version).not.toBe(item.version);

    const z = zReportItem(
      {
        branchCode: 'TLV01',
        zNumber: 'Z-1',
        closedAt: '2026-11-20T23:00:00Z',
        totalBeforeVat: '10',
        fields: { tips: '2', orders_count: '4', unknown: 'x' },
      },
      'br_tlv',
    );
    expect(z.key).toBe('br_tlv/Z-1');
    expect(z.body).toEqual({
      branch_id: 'br_tlv',
      z_number: 'Z-1',
      closed_at: '2026-11-20T23:00:00Z',
      total_before_vat: '10.00',
      tips: '2.00',
      orders_count: 4,
    });
  });
});
