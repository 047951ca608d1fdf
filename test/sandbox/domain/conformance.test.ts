import { describe, expect, it } from 'vitest';
import { EVENT_DATA_SCHEMAS, strict, type SchemaName } from '../../../src/contract/index.js';
import { createHarness } from './harness.js';

/** Every list endpoint of the domain and the strict schema of its items. */
const LISTS: readonly [string, SchemaName, 'supplier' | 'buyer'][] = [
  ['/supplier/buyers', 'SupplierBuyer', 'supplier'],
  ['/supplier/orders', 'Order', 'supplier'],
  ['/supplier/documents', 'Document', 'supplier'],
  ['/supplier/price-lists', 'PriceList', 'supplier'],
  ['/branches', 'Branch', 'buyer'],
  ['/purchase-types', 'PurchaseType', 'buyer'],
  ['/suppliers', 'Vendor', 'buyer'],
  ['/products', 'CatalogProduct', 'buyer'],
  ['/expense-categories', 'ExpenseCategory', 'buyer'],
  ['/expense-accounts', 'ExpenseAccount', 'buyer'],
  ['/account-mappings', 'AccountMapping', 'buyer'],
  ['/orders', 'Order', 'buyer'],
  ['/documents', 'Document', 'buyer'],
  ['/expenses', 'Expense', 'buyer'],
  ['/accounting/journal-lines', 'JournalLine', 'buyer'],
  ['/sales/z-reports', 'ZReport', 'buyer'],
  ['/sales/item-sales', 'ItemSale', 'buyer'],
  ['/inventory-counts', 'InventoryCount', 'buyer'],
];

describe('strict conformance of everything the domain serves', () => {
  it.each(LISTS)('GET %s: every item of every page matches strict.%s', async (path, schema, as) => {
    const h = createHarness();
    let cursor: string | null = null;
    let seen = 0;
    do {
      const query: Record<string, string> =
        cursor === null ? { limit: '200', expand: 'history' } : { limit: '200', cursor };
      const reply = await h.call('GET', path, { as, query });
      expect(reply.status).toBe(200);
      const body = reply.body as { data: unknown[]; next_cursor?: string | null };
      for (const item of body.data) {
        const result = strict[schema].safeParse(item);
        if (!result.success) throw new Error(`${path}: ${JSON.stringify(result.error.issues.slice(0, 3))}`);
      }
      seen += body.data.length;
      cursor = body.next_cursor ?? null;
    } while (cursor !== null);
    expect(seen).toBeGreaterThan(0);
  });

  it('every event raised across a busy scenario matches the data schema of its type', async () => {
    const h = createHarness();
    const [orderId = '', otherId = ''] = h.action<{ order_ids: string[] }>('buyer_send_order', {
      count: 2,
    }).order_ids;
    await h.call('POST', `/supplier/orders/${orderId}/confirm`);
    h.action('buyer_cancel_order', { order_id: orderId });
    h.action('buyer_cancel_order', { order_id: otherId });
    const received = Object.values(
      h.state()['documents'] as Record<string, { id: string; type: string; buyer_status: string }>,
    ).find((doc) => doc.buyer_status === 'received' && doc.type === 'invoice');
    h.action('buyer_approve_document', { document_id: received?.id });
    const documentBody = {
      type: 'delivery_note',
      number: 'DN-C1',
      date: '2026-11-21',
      buyer_id: 'byr_demo',
      currency: 'ILS',
      totals: { before_vat: '10.00', vat: '1.80', with_vat: '11.80' },
      lines: [{ sku: 'VEG-0001', name: 'Tomatoes', quantity: '1', unit_price: '10.00', total: '10.00' }],
    };
    expect((await h.call('POST', '/supplier/documents', { body: documentBody })).status).toBe(201);
    const pending = Object.values(
      h.state()['documents'] as Record<string, { id: string; buyer_status: string }>,
    ).find((doc) => doc.buyer_status === 'pending');
    h.action('buyer_receive_document', { document_id: pending?.id, with_differences: true });
    h.action('buyer_dispute_document', { document_id: pending?.id });
    h.action('approve_journal_lines', { count: 3 });
    const expense = h.action<{ id: string }>('create_expense');
    h.action('approve_expense', { expense_id: expense.id });
    h.action('complete_inventory_count', { branch_id: 'br_rnn' });
    h.action('update_supplier');
    await h.call('POST', '/supplier/buyer-invitations', {
      body: { business_name: 'Bistro Sderot', contact_email: 'owner@bistro.example' },
    });
    h.action('accept_invitation');
    await h.call('POST', '/supplier/price-lists/pl_events/buyers', { body: { buyer_id: 'byr_cafe_nord' } });
    const types = new Set(h.events.map((event) => event.type));
    expect([...types].sort()).toEqual(
      Object.keys(EVENT_DATA_SCHEMAS)
        .filter(
          (type) =>
            !['card_transaction.imported', 'api_client.suspended', 'webhook.disabled', 'ping'].includes(type),
        )
        .sort(),
    );
    for (const event of h.events) {
      const schema = EVENT_DATA_SCHEMAS[event.type as keyof typeof EVENT_DATA_SCHEMAS];
      const result = strict[schema].safeParse(event.data);
      if (!result.success)
        throw new Error(`${event.type}: ${JSON.stringify(result.error.issues.slice(0, 3))}`);
      expect(event.data.id).toEqual(expect.any(String));
    }
  });

  it('single-resource reads are strict too', async () => {
    const h = createHarness();
    const checks: [string, SchemaName, 'supplier' | 'buyer'][] = [
      ['/supplier/buyers/byr_demo', 'SupplierBuyer', 'supplier'],
      ['/suppliers/sup_demo', 'Vendor', 'buyer'],
      [
        `/inventory-counts/${Object.keys(h.state()['inventoryCounts'] as object)[0] ?? ''}`,
        'InventoryCount',
        'buyer',
      ],
      [
        `/accounting/exports/${Object.keys(h.state()['exportBatches'] as object)[0] ?? ''}`,
        'AccountingExportBatch',
        'buyer',
      ],
      [`/documents/${Object.keys(h.state()['documents'] as object)[0] ?? ''}`, 'Document', 'buyer'],
    ];
    for (const [path, schema, as] of checks) {
      const reply = await h.call('GET', path, { as });
      expect(reply.status).toBe(200);
      strict[schema].parse(reply.body);
    }
    const invitation = await h.call('POST', '/supplier/buyer-invitations', {
      body: { business_name: 'Cafe Yam', contact_email: 'yam@example.com' },
    });
    expect(invitation.status).toBe(201);
    strict.BuyerInvitation.parse(invitation.body);
  });
});
