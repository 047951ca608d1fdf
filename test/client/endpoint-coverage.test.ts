/**
 * Every client method, called over HTTP against a recording server: the method, path, query and body it sends.
 * The last test checks that no method of the client is missing from this table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/client/index.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { RESOURCES, type ResourceName } from './helpers/resources.js';
import { sendJson, startScriptServer, type ScriptServer } from './helpers/script-server.js';

type Answer =
  { resource: ResourceName; shape: 'one' | 'page' | 'list'; status?: number } | { status: 202 | 204 };

interface Case {
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  answer: Answer;
  call: (api: ApiClient) => Promise<unknown>;
}

const one = (resource: ResourceName, status = 200): Answer => ({ resource, shape: 'one', status });
const paged = (resource: ResourceName): Answer => ({ resource, shape: 'page' });
const listed = (resource: ResourceName): Answer => ({ resource, shape: 'list' });
const since = '2026-11-01T00:00:00Z';
const lineBody = { sku: 'A', name: 'A', quantity: '1', unit_price: '10.00', total: '10.00' };
const documentBody = {
  type: 'invoice',
  number: 'INV-1',
  date: '2026-11-21',
  buyer_id: 'buy_1',
  currency: 'ILS',
  totals: { before_vat: '10.00', vat: '1.80', with_vat: '11.80' },
  lines: [lineBody],
  file_ids: ['file_1'],
};
const expenseBody = {
  vendor_id: 'ven_2',
  doc_type: 'tax_invoice',
  doc_date: '2026-11-20',
  branch_id: 'br_1',
  vat_mode: 'with_vat',
  totals: { before_vat: '100.00', vat: '18.00', with_vat: '118.00' },
  lines: [{ category_id: 'cat_1', amount_before_vat: '100.00', vat_amount: '18.00' }],
};
const zReport = { branch_id: 'br_1', z_number: '7', closed_at: since, total_before_vat: '10.00' };
const itemSale = {
  branch_id: 'br_1',
  z_number: '7',
  value_date: since,
  item_code: 'A1',
  item_name: 'A',
  quantity: '1',
  unit_price: '1.00',
  total: '1.00',
  line_number: 1,
};

const CASES: Record<string, Case> = {
  'account.me': { method: 'GET', path: '/me', answer: one('Me'), call: (api) => api.account.me() },
  'supplierBuyers.list': {
    method: 'GET',
    path: '/supplier/buyers',
    query: { updated_since: since, limit: '200', cursor: 'c1' },
    answer: paged('SupplierBuyer'),
    call: (api) => api.supplierBuyers.list({ updated_since: since, limit: 200, cursor: 'c1' }).firstPage(),
  },
  'supplierBuyers.get': {
    method: 'GET',
    path: '/supplier/buyers/buy_1',
    answer: one('SupplierBuyer'),
    call: (api) => api.supplierBuyers.get('buy_1'),
  },
  'supplierBuyers.getWithEtag': {
    method: 'GET',
    path: '/supplier/buyers/buy_1',
    answer: one('SupplierBuyer'),
    call: (api) => api.supplierBuyers.getWithEtag('buy_1'),
  },
  'supplierBuyers.update': {
    method: 'PATCH',
    path: '/supplier/buyers/buy_1',
    body: { customer_number: 'C-1', erp_ref: 'E-1' },
    answer: one('SupplierBuyer'),
    call: (api) =>
      api.supplierBuyers.update('buy_1', { customer_number: 'C-1', erp_ref: 'E-1' }, { ifMatch: '"e"' }),
  },
  'supplierBuyers.invite': {
    method: 'POST',
    path: '/supplier/buyer-invitations',
    body: { business_name: 'Cafe', contact_email: 'a@cafe.test' },
    answer: one('BuyerInvitation', 201),
    call: (api) => api.supplierBuyers.invite({ business_name: 'Cafe', contact_email: 'a@cafe.test' }),
  },
  'orders.list': {
    method: 'GET',
    path: '/supplier/orders',
    query: {
      updated_since: since,
      from: '2026-11-01',
      to: '2026-11-30',
      status: 'pending_approval,approved',
      buyer_id: 'buy_1',
      expand: 'lines,history',
    },
    answer: paged('Order'),
    call: (api) =>
      api.orders
        .list({
          updated_since: since,
          from: '2026-11-01',
          to: '2026-11-30',
          status: ['pending_approval', 'approved'],
          buyer_id: 'buy_1',
          expand: ['lines', 'history'],
        })
        .firstPage(),
  },
  'orders.get': {
    method: 'GET',
    path: '/supplier/orders/ord_1',
    query: { expand: 'history' },
    answer: one('Order'),
    call: (api) => api.orders.get('ord_1', { expand: ['history'] }),
  },
  'orders.getWithEtag': {
    method: 'GET',
    path: '/supplier/orders/ord_1',
    answer: one('Order'),
    call: (api) => api.orders.getWithEtag('ord_1'),
  },
  'orders.confirm': {
    method: 'POST',
    path: '/supplier/orders/ord_1/confirm',
    body: { lines: [{ line_id: 'ol_1', quantity_confirmed: '10' }] },
    answer: one('Order'),
    call: (api) => api.orders.confirm('ord_1', { lines: [{ line_id: 'ol_1', quantity_confirmed: '10' }] }),
  },
  'orders.acknowledge': {
    method: 'POST',
    path: '/supplier/orders/ord_1/acknowledge',
    body: { external_ref: 'SO-55' },
    answer: one('Order'),
    call: (api) => api.orders.acknowledge('ord_1', { external_ref: 'SO-55' }),
  },
  'orders.reject': {
    method: 'POST',
    path: '/supplier/orders/ord_1/reject',
    body: { reason: 'out of stock' },
    answer: one('Order'),
    call: (api) => api.orders.reject('ord_1', { reason: 'out of stock' }),
  },
  'documents.list': {
    method: 'GET',
    path: '/supplier/documents',
    query: { type: 'invoice,credit_note', buyer_status: 'received' },
    answer: paged('Document'),
    call: (api) =>
      api.documents.list({ type: ['invoice', 'credit_note'], buyer_status: 'received' }).firstPage(),
  },
  'documents.get': {
    method: 'GET',
    path: '/supplier/documents/doc_1',
    answer: one('Document'),
    call: (api) => api.documents.get('doc_1'),
  },
  'documents.create': {
    method: 'POST',
    path: '/supplier/documents',
    body: documentBody,
    answer: one('Document', 201),
    call: (api) => api.documents.create(documentBody, { idempotencyKey: 'invoice/INV-1' }),
  },
  'catalog.upsertProduct': {
    method: 'PUT',
    path: '/supplier/products/TOM%2F1KG',
    body: { name: 'Tomatoes', unit: 'kg' },
    answer: one('Product', 201),
    call: (api) => api.catalog.upsertProduct('TOM/1KG', { name: 'Tomatoes', unit: 'kg' }),
  },
  'catalog.deleteProduct': {
    method: 'DELETE',
    path: '/supplier/products/TOM-1KG',
    answer: { status: 204 },
    call: (api) => api.catalog.deleteProduct('TOM-1KG'),
  },
  'catalog.upsertProducts': {
    method: 'POST',
    path: '/supplier/products/batch',
    body: { items: [{ sku: 'A', name: 'A', unit: 'kg' }] },
    answer: one('BatchResponse'),
    call: (api) => api.catalog.upsertProducts([{ sku: 'A', name: 'A', unit: 'kg' }]),
  },
  'catalog.setAvailability': {
    method: 'POST',
    path: '/supplier/products/A/availability',
    body: { available: false, until: '2026-12-01', reason: 'season' },
    answer: one('Product'),
    call: (api) =>
      api.catalog.setAvailability('A', { available: false, until: '2026-12-01', reason: 'season' }),
  },
  'priceLists.list': {
    method: 'GET',
    path: '/supplier/price-lists',
    query: { limit: '10' },
    answer: paged('PriceList'),
    call: (api) => api.priceLists.list({ limit: 10 }).firstPage(),
  },
  'priceLists.putPrices': {
    method: 'PUT',
    path: '/supplier/price-lists/pl_1/prices',
    body: { items: [{ sku: 'A', price: '9.90' }] },
    answer: one('BatchResponse'),
    call: (api) => api.priceLists.putPrices('pl_1', [{ sku: 'A', price: '9.90' }]),
  },
  'priceLists.assignBuyer': {
    method: 'POST',
    path: '/supplier/price-lists/pl_1/buyers',
    body: { buyer_id: 'buy_1', valid_from: '2026-12-01' },
    answer: { status: 204 },
    call: (api) => api.priceLists.assignBuyer('pl_1', { buyer_id: 'buy_1', valid_from: '2026-12-01' }),
  },
  'priceLists.unassignBuyer': {
    method: 'DELETE',
    path: '/supplier/price-lists/pl_1/buyers/buy_1',
    answer: { status: 204 },
    call: (api) => api.priceLists.unassignBuyer('pl_1', 'buy_1'),
  },
  'reference.branches': {
    method: 'GET',
    path: '/branches',
    answer: paged('Branch'),
    call: (api) => api.reference.branches().firstPage(),
  },
  'reference.purchaseTypes': {
    method: 'GET',
    path: '/purchase-types',
    answer: listed('PurchaseType'),
    call: (api) => api.reference.purchaseTypes(),
  },
  'reference.suppliers': {
    method: 'GET',
    path: '/suppliers',
    query: { updated_since: since },
    answer: paged('Vendor'),
    call: (api) => api.reference.suppliers({ updated_since: since }).firstPage(),
  },
  'reference.getSupplier': {
    method: 'GET',
    path: '/suppliers/ven_1',
    answer: one('Vendor'),
    call: (api) => api.reference.getSupplier('ven_1'),
  },
  'reference.products': {
    method: 'GET',
    path: '/products',
    query: { updated_since: since },
    answer: paged('CatalogProduct'),
    call: (api) => api.reference.products({ updated_since: since }).firstPage(),
  },
  'reference.expenseCategories': {
    method: 'GET',
    path: '/expense-categories',
    answer: listed('ExpenseCategory'),
    call: (api) => api.reference.expenseCategories(),
  },
  'reference.expenseAccounts': {
    method: 'GET',
    path: '/expense-accounts',
    answer: listed('ExpenseAccount'),
    call: (api) => api.reference.expenseAccounts(),
  },
  'reference.accountMappings': {
    method: 'GET',
    path: '/account-mappings',
    answer: listed('AccountMapping'),
    call: (api) => api.reference.accountMappings(),
  },
  'purchases.orders': {
    method: 'GET',
    path: '/orders',
    query: { branch_id: 'br_1', supplier_id: 'ven_1', status: 'approved' },
    answer: paged('Order'),
    call: (api) =>
      api.purchases.orders({ branch_id: 'br_1', supplier_id: 'ven_1', status: ['approved'] }).firstPage(),
  },
  'purchases.documents': {
    method: 'GET',
    path: '/documents',
    query: { supplier_id: 'ven_1', from: '2026-11-01' },
    answer: paged('Document'),
    call: (api) => api.purchases.documents({ supplier_id: 'ven_1', from: '2026-11-01' }).firstPage(),
  },
  'purchases.getDocument': {
    method: 'GET',
    path: '/documents/doc_1',
    query: { expand: 'files' },
    answer: one('Document'),
    call: (api) => api.purchases.getDocument('doc_1', { expand: ['files'] }),
  },
  'expenses.list': {
    method: 'GET',
    path: '/expenses',
    query: { status: 'approved', category_id: 'cat_1' },
    answer: paged('Expense'),
    call: (api) => api.expenses.list({ status: 'approved', category_id: 'cat_1' }).firstPage(),
  },
  'expenses.create': {
    method: 'POST',
    path: '/expenses',
    body: expenseBody,
    answer: one('Expense', 201),
    call: (api) => api.expenses.create(expenseBody, { idempotencyKey: 'exp-ven_2-77' }),
  },
  'accounting.journalLines': {
    method: 'GET',
    path: '/accounting/journal-lines',
    query: { status: 'approved_for_export', period: '2026-11', source: 'purchase' },
    answer: paged('JournalLine'),
    call: (api) =>
      api.accounting
        .journalLines({ status: 'approved_for_export', period: '2026-11', source: 'purchase' })
        .firstPage(),
  },
  'accounting.createExport': {
    method: 'POST',
    path: '/accounting/exports',
    body: { journal_line_ids: ['jl_1', 'jl_2'], target: 'csv' },
    answer: one('AccountingExportBatch', 201),
    call: (api) =>
      api.accounting.createExport(
        { journal_line_ids: ['jl_1', 'jl_2'], target: 'csv' },
        { idempotencyKey: 'b1' },
      ),
  },
  'accounting.exportJournalLines': {
    method: 'POST',
    path: '/accounting/exports',
    body: { journal_line_ids: ['jl_1'], external_ref: 'HSB-9' },
    answer: one('AccountingExportBatch', 201),
    call: (api) =>
      api.accounting.exportJournalLines(
        { journal_line_ids: ['jl_1'], external_ref: 'HSB-9' },
        { idempotencyKey: 'b2' },
      ),
  },
  'accounting.getExport': {
    method: 'GET',
    path: '/accounting/exports/eb_1',
    answer: one('AccountingExportBatch'),
    call: (api) => api.accounting.getExport('eb_1'),
  },
  'sales.zReports': {
    method: 'GET',
    path: '/sales/z-reports',
    query: { branch_id: 'br_1', from: '2026-11-01', to: '2026-11-02' },
    answer: paged('ZReport'),
    call: (api) =>
      api.sales.zReports({ branch_id: 'br_1', from: '2026-11-01', to: '2026-11-02' }).firstPage(),
  },
  'sales.pushZReports': {
    method: 'POST',
    path: '/sales/z-reports',
    body: { items: [zReport] },
    answer: one('BatchResponse'),
    call: (api) => api.sales.pushZReports([zReport]),
  },
  'sales.itemSales': {
    method: 'GET',
    path: '/sales/item-sales',
    query: { z_number: '7' },
    answer: paged('ItemSale'),
    call: (api) => api.sales.itemSales({ z_number: '7' }).firstPage(),
  },
  'sales.pushItemSales': {
    method: 'POST',
    path: '/sales/item-sales',
    body: { items: [itemSale] },
    answer: one('BatchResponse'),
    call: (api) => api.sales.pushItemSales([itemSale]),
  },
  'inventory.counts': {
    method: 'GET',
    path: '/inventory-counts',
    query: { expand: 'lines', branch_id: 'br_1' },
    answer: paged('InventoryCount'),
    call: (api) => api.inventory.counts({ expand: ['lines'], branch_id: 'br_1' }).firstPage(),
  },
  'inventory.getCount': {
    method: 'GET',
    path: '/inventory-counts/ic_1',
    answer: one('InventoryCount'),
    call: (api) => api.inventory.getCount('ic_1'),
  },
  'reports.foodCost': {
    method: 'GET',
    path: '/reports/food-cost',
    query: { from: '2026-11-01', to: '2026-11-30', purchase_type: 'FC' },
    answer: one('FoodCostReport'),
    call: (api) => api.reports.foodCost({ from: '2026-11-01', to: '2026-11-30', purchase_type: 'FC' }),
  },
  'reports.purchases': {
    method: 'GET',
    path: '/reports/purchases',
    query: { from: '2026-11-01', to: '2026-11-30', group_by: 'supplier' },
    answer: one('PurchasesReport'),
    call: (api) => api.reports.purchases({ from: '2026-11-01', to: '2026-11-30', group_by: 'supplier' }),
  },
  'reports.expenses': {
    method: 'GET',
    path: '/reports/expenses',
    query: { from: '2026-11-01', to: '2026-11-30', group_by: 'category,branch' },
    answer: one('ExpensesReport'),
    call: (api) =>
      api.reports.expenses({ from: '2026-11-01', to: '2026-11-30', group_by: ['category', 'branch'] }),
  },
  'reports.pnl': {
    method: 'GET',
    path: '/reports/pnl',
    query: { period: '2026-11', branch_id: 'br_1' },
    answer: one('PnlReport'),
    call: (api) => api.reports.pnl({ period: '2026-11', branch_id: 'br_1' }),
  },
  'files.upload': {
    method: 'POST',
    path: '/files',
    answer: one('File', 201),
    call: (api) =>
      api.files.upload({ content: Buffer.from('abc'), name: 'a.pdf', purpose: 'document_attachment' }),
  },
  'files.get': {
    method: 'GET',
    path: '/files/file_1',
    answer: one('File'),
    call: (api) => api.files.get('file_1'),
  },
  'exports.create': {
    method: 'POST',
    path: '/exports',
    body: { resources: ['orders', 'documents'], from: '2026-01-01', format: 'ndjson' },
    answer: one('ExportJob', 202),
    call: (api) =>
      api.exports.create({ resources: ['orders', 'documents'], from: '2026-01-01', format: 'ndjson' }),
  },
  'exports.get': {
    method: 'GET',
    path: '/exports/exj_1',
    answer: one('ExportJob'),
    call: (api) => api.exports.get('exj_1'),
  },
  'audit.requests': {
    method: 'GET',
    path: '/audit/requests',
    query: { status: '429', client_id: 'cli_1' },
    answer: paged('AuditRequestEntry'),
    call: (api) => api.audit.requests({ status: 429, client_id: 'cli_1' }).firstPage(),
  },
  'webhooks.list': {
    method: 'GET',
    path: '/webhooks',
    answer: listed('WebhookEndpoint'),
    call: (api) => api.webhooks.list(),
  },
  'webhooks.create': {
    method: 'POST',
    path: '/webhooks',
    body: { url: 'https://erp.example.test/hooks', events: ['order.created'] },
    answer: one('WebhookEndpoint', 201),
    call: (api) => api.webhooks.create({ url: 'https://erp.example.test/hooks', events: ['order.created'] }),
  },
  'webhooks.get': {
    method: 'GET',
    path: '/webhooks/wh_1',
    answer: one('WebhookEndpoint'),
    call: (api) => api.webhooks.get('wh_1'),
  },
  'webhooks.update': {
    method: 'PATCH',
    path: '/webhooks/wh_1',
    body: { status: 'active' },
    answer: one('WebhookEndpoint'),
    call: (api) => api.webhooks.update('wh_1', { status: 'active' }),
  },
  'webhooks.delete': {
    method: 'DELETE',
    path: '/webhooks/wh_1',
    answer: { status: 204 },
    call: (api) => api.webhooks.delete('wh_1'),
  },
  'webhooks.test': {
    method: 'POST',
    path: '/webhooks/wh_1/test',
    answer: one('WebhookDelivery'),
    call: (api) => api.webhooks.test('wh_1'),
  },
  'webhooks.deliveries': {
    method: 'GET',
    path: '/webhooks/wh_1/deliveries',
    query: { status: 'failed' },
    answer: paged('WebhookDelivery'),
    call: (api) => api.webhooks.deliveries('wh_1', { status: 'failed' }).firstPage(),
  },
  'webhooks.redeliver': {
    method: 'POST',
    path: '/webhooks/wh_1/deliveries/dlv_1/redeliver',
    answer: { status: 202 },
    call: (api) => api.webhooks.redeliver('wh_1', 'dlv_1'),
  },
  'events.list': {
    method: 'GET',
    path: '/events',
    query: { types: 'order.created,order.updated', occurred_since: since },
    answer: paged('EventEnvelope'),
    call: (api) =>
      api.events.list({ types: ['order.created', 'order.updated'], occurred_since: since }).firstPage(),
  },
};

let server: ScriptServer;
let client: TestClient;

beforeAll(async () => {
  server = await startScriptServer();
  client = makeClient(server);
});

afterAll(async () => {
  await client.close();
  await server.close();
});

function respondWith(answer: Answer): void {
  server.enqueue((_request, response) => {
    if (!('resource' in answer)) {
      response.writeHead(answer.status, { 'x-request-id': 'req_cov' });
      response.end();
      return;
    }
    const item = RESOURCES[answer.resource];
    const body =
      answer.shape === 'one'
        ? item
        : answer.shape === 'page'
          ? { data: [item], next_cursor: null, has_more: false }
          : { data: [item] };
    sendJson(response, answer.status ?? 200, body, { etag: '"etag-1"' });
  });
}

describe('endpoint coverage', () => {
  it.each(Object.entries(CASES))('%s sends the request the contract describes', async (_name, testCase) => {
    const before = server.requests.length;
    respondWith(testCase.answer);
    await testCase.call(client.api);
    expect(server.requests.length).toBe(before + 1);
    const sent = server.requests[before];
    if (!sent) throw new Error('no request recorded');
    expect(sent.method).toBe(testCase.method);
    expect(sent.path).toBe(testCase.path);
    expect(Object.fromEntries(sent.query)).toEqual(testCase.query ?? {});
    if (testCase.body !== undefined) {
      expect(sent.headers['content-type']).toBe('application/json');
      expect(sent.json).toEqual(testCase.body);
    } else if (testCase.path !== '/files') {
      expect(sent.body.length).toBe(0);
    }
    if (testCase.method === 'POST') expect(sent.headers['idempotency-key']).toBeTruthy();
    else expect(sent.headers['idempotency-key']).toBeUndefined();
    expect(sent.headers.authorization).toMatch(/^Bearer svc_test_/);
  });

  it('covers every method of every area of the client', () => {
    const methods: string[] = [];
    for (const [area, value] of Object.entries(client.api)) {
      if (typeof value !== 'object' || value === null) continue;
      for (const [name, member] of Object.entries(value))
        if (typeof member === 'function') methods.push(`${area}.${name}`);
    }
    expect(methods.sort()).toEqual(Object.keys(CASES).sort());
  });
});
