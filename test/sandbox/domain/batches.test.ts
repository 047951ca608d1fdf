import { describe, expect, it } from 'vitest';
import { strict } from '../../../src/contract/index.js';
import { createHarness } from './harness.js';

interface Batch {
  summary: { total: number; succeeded: number; failed: number; skipped: number };
  items: { index: number; key?: string; status: string; errors?: { field: string; code: string }[] }[];
}

describe('catalog and sales batch upserts', () => {
  it('PUT product answers 201 when new and 200 when it existed; DELETE is a soft delete', async () => {
    const h = createHarness();
    const created = await h.call('PUT', '/supplier/products/NEW-1', {
      body: { name: 'Saffron 10 g', unit: 'unit' },
    });
    expect(created.status).toBe(201);
    strict.Product.parse(created.body);
    expect(
      (
        await h.call('PUT', '/supplier/products/NEW-1', {
          body: { name: 'Saffron 10 g', unit: 'unit', available: false },
        })
      ).status,
    ).toBe(200);
    expect((await h.call('DELETE', '/supplier/products/NEW-1')).status).toBe(204);
    expect(
      (h.state()['products'] as Record<string, { deleted_at: string | null }>)['NEW-1']?.deleted_at,
    ).not.toBeNull();
    expect((await h.call('DELETE', '/supplier/products/NEW-1')).status).toBe(404);
  });

  it('reports per-item results and keeps going past failed items', async () => {
    const h = createHarness();
    const reply = await h.call('POST', '/supplier/products/batch', {
      body: {
        items: [
          { sku: 'B-1', name: 'Good', unit: 'kg' },
          { sku: 'B-2', unit: 'kg' },
          { sku: 'VEG-0001', name: 'Tomatoes (1 kg)', unit: 'kg' },
          { sku: 'B-4', name: 'Img', unit: 'kg', image_file_id: 'file_missing' },
        ],
      },
    });
    expect(reply.status).toBe(200);
    const batch = strict.BatchResponse.parse(reply.body) as Batch;
    expect(batch.summary).toEqual({ total: 4, succeeded: 2, failed: 2, skipped: 0 });
    expect(batch.items.map((item) => [item.key, item.status])).toEqual([
      ['B-1', 'created'],
      ['B-2', 'failed'],
      ['VEG-0001', 'updated'],
      ['B-4', 'failed'],
    ]);
    expect(batch.items[1]?.errors).toContainEqual(
      expect.objectContaining({ field: 'items[1].name', code: 'required' }),
    );
    expect(batch.items[3]?.errors).toContainEqual(
      expect.objectContaining({ field: 'items[3].image_file_id', code: 'not_found' }),
    );
  });

  it('answers 422 with the per-item results when every item failed', async () => {
    const h = createHarness();
    const reply = await h.call('POST', '/supplier/products/batch', {
      body: { items: [{ sku: 'X' }, { name: 'no sku', unit: 'kg' }] },
    });
    expect(reply.status).toBe(422);
    const body = reply.body as Batch & { code: string; type: string; request_id: string };
    expect([body.code, body.request_id]).toEqual(['validation_error', 'req_test']);
    expect(body.type).toMatch(/\/errors\/validation_error$/);
    expect(body.summary).toEqual({ total: 2, succeeded: 0, failed: 2, skipped: 0 });
  });

  it('upserts Z-reports by branch_id/z_number: created, then skipped when unchanged, updated when changed', async () => {
    const h = createHarness();
    const item = {
      branch_id: 'br_tlv',
      z_number: '9001',
      closed_at: '2026-11-21T22:00:00Z',
      total_before_vat: '12000.00',
    };
    const first = (
      await h.call('POST', '/sales/z-reports', {
        body: { items: [item, { ...item, branch_id: 'br_nowhere' }] },
      })
    ).body as Batch;
    expect(first.items.map((i) => [i.key, i.status])).toEqual([
      ['br_tlv/9001', 'created'],
      ['br_nowhere/9001', 'failed'],
    ]);
    const second = (
      await h.call('POST', '/sales/z-reports', {
        body: { items: [item, { ...item, total_before_vat: '12500.00' }] },
      })
    ).body as Batch;
    expect(second.items.map((i) => i.status)).toEqual(['skipped', 'updated']);
    strict.BatchResponse.parse(second);
  });

  it('upserts item sales by branch_id/z_number/line_number', async () => {
    const h = createHarness();
    const sale = {
      branch_id: 'br_hfa',
      z_number: '77',
      value_date: '2026-11-21T21:00:00Z',
      item_code: 'M1',
      item_name: 'Falafel',
      quantity: '3',
      unit_price: '20.00',
      total: '60.00',
      line_number: 1,
    };
    const first = (
      await h.call('POST', '/sales/item-sales', {
        body: { items: [sale, { ...sale, line_number: 2 }, { ...sale, quantity: 'x', line_number: 3 }] },
      })
    ).body as Batch;
    expect(first.items.map((i) => [i.key, i.status])).toEqual([
      ['br_hfa/77/1', 'created'],
      ['br_hfa/77/2', 'created'],
      ['br_hfa/77/3', 'failed'],
    ]);
    const again = (
      await h.call('POST', '/sales/item-sales', {
        body: { items: [{ ...sale, quantity: '4', total: '80.00' }] },
      })
    ).body as Batch;
    expect(again.items[0]?.status).toBe('updated');
    const page = (await h.call('GET', '/sales/item-sales', { query: { z_number: '77' } })).body as {
      data: unknown[];
    };
    expect(page.data).toHaveLength(2);
    for (const row of page.data) strict.ItemSale.parse(row);
  });

  it('price entries: unknown SKUs fail, known ones are created then skipped when unchanged', async () => {
    const h = createHarness();
    const first = (
      await h.call('PUT', '/supplier/price-lists/pl_events/prices', {
        body: {
          items: [
            { sku: 'VEG-0002', price: '7.10' },
            { sku: 'NOPE', price: '1.00' },
            { sku: 'VEG-0003', price: '0.00' },
          ],
        },
      })
    ).body as Batch;
    expect(first.items.map((i) => i.status)).toEqual(['created', 'failed', 'failed']);
    const again = (
      await h.call('PUT', '/supplier/price-lists/pl_events/prices', {
        body: { items: [{ sku: 'VEG-0002', price: '7.10' }] },
      })
    ).body as Batch;
    expect(again.items[0]?.status).toBe('skipped');
  });

  it('assigning a price list to a buyer raises price_list.assigned', async () => {
    const h = createHarness();
    expect(
      (
        await h.call('POST', '/supplier/price-lists/pl_events/buyers', {
          body: { buyer_id: 'byr_cafe_nord' },
        })
      ).status,
    ).toBe(204);
    const event = h.events.find((candidate) => candidate.type === 'price_list.assigned');
    expect(event?.data).toEqual({ object: 'price_list', id: 'pl_events', buyer_id: 'byr_cafe_nord' });
    strict.PriceListAssignedEventData.parse(event?.data);
    const buyer = (await h.call('GET', '/supplier/buyers/byr_cafe_nord')).body as { price_list_id: string };
    expect(buyer.price_list_id).toBe('pl_events');
  });
});
