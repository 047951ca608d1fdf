/**
 * The realistic calls of the sandbox conformance suites (test/sandbox), replayed through the validation proxy:
 * each step names its caller, request and the status the contract promises, and may read earlier answers.
 */
import type { RequestBody } from './generator.js';

export type ScenarioCaller = 'supplier' | 'buyer' | 'enterprise' | 'none';

export interface ScenarioStep {
  name: string;
  caller: ScenarioCaller;
  method: string;
  target: string;
  body?: RequestBody;
  headers?: Record<string, string>;
  expect: number;
}

/** What a scenario knows before it starts (ids read from the sandbox, webhook receiver URL, credentials). */
export interface ScenarioContext {
  pendingOrderIds: readonly string[];
  journalLineIds: readonly string[];
  /** An https:// receiver URL (the document, like part 8, admits https only). */
  receiverUrl: string;
  supplierClientId: string;
  supplierKey: string;
  runId: string;
}

const json = (value: unknown): RequestBody => ({ kind: 'json', value });

/** Steps that need only the context; `later` steps read ids from earlier answers (see the test). */
export function scenarioSteps(ctx: ScenarioContext, answers: Map<string, unknown>): ScenarioStep[] {
  const idOf = (name: string, field = 'id'): string => {
    const body = answers.get(name);
    const value =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
    return typeof value === 'string' ? value : 'missing';
  };
  const [confirmId = 'none', rejectId = 'none', ackId = 'none'] = ctx.pendingOrderIds;
  const key = (suffix: string) => `${ctx.runId}-${suffix}`;
  return [
    { name: 'me', caller: 'supplier', method: 'GET', target: '/me', expect: 200 },
    {
      name: 'token',
      caller: 'none',
      method: 'POST',
      target: '/oauth/token',
      body: {
        kind: 'form',
        value: {
          grant_type: 'client_credentials',
          client_id: ctx.supplierClientId,
          client_secret: ctx.supplierKey,
        },
      },
      expect: 200,
    },
    {
      name: 'token-unknown-grant',
      caller: 'none',
      method: 'POST',
      target: '/oauth/token',
      body: json({
        grant_type: 'client_credentials',
        client_id: ctx.supplierClientId,
        client_secret: 'svc_test_wrong',
      }),
      expect: 401,
    },
    {
      name: 'orders-page-1',
      caller: 'supplier',
      method: 'GET',
      target: '/supplier/orders?limit=3&expand=history',
      expect: 200,
    },
    {
      name: 'orders-page-2',
      caller: 'supplier',
      method: 'GET',
      target: `/supplier/orders?limit=3&cursor=${encodeURIComponent(nextCursor(answers.get('orders-page-1')))}`,
      expect: 200,
    },
    {
      name: 'order',
      caller: 'supplier',
      method: 'GET',
      target: `/supplier/orders/${confirmId}`,
      expect: 200,
    },
    {
      name: 'confirm',
      caller: 'supplier',
      method: 'POST',
      target: `/supplier/orders/${confirmId}/confirm`,
      expect: 200,
    },
    {
      name: 'confirm-again',
      caller: 'supplier',
      method: 'POST',
      target: `/supplier/orders/${confirmId}/confirm`,
      expect: 200,
    },
    {
      name: 'reject',
      caller: 'supplier',
      method: 'POST',
      target: `/supplier/orders/${rejectId}/reject`,
      body: json({ reason: 'Out of stock this week' }),
      expect: 200,
    },
    {
      name: 'reject-again',
      caller: 'supplier',
      method: 'POST',
      target: `/supplier/orders/${rejectId}/reject`,
      body: json({ reason: 'Again' }),
      expect: 200,
    },
    {
      name: 'reject-confirmed',
      caller: 'supplier',
      method: 'POST',
      target: `/supplier/orders/${confirmId}/reject`,
      body: json({ reason: 'Too late' }),
      expect: 409,
    },
    {
      name: 'invite-unknown-price-list',
      caller: 'supplier',
      method: 'POST',
      target: '/supplier/buyer-invitations',
      body: json({
        business_name: 'Cafe Est',
        contact_email: 'owner@cafe-est.example',
        price_list_id: 'pl_missing',
      }),
      expect: 422,
    },
    {
      name: 'acknowledge',
      caller: 'supplier',
      method: 'POST',
      target: `/supplier/orders/${ackId}/acknowledge`,
      body: json({ external_ref: 'SO-1001' }),
      expect: 200,
    },
    { name: 'buyers', caller: 'supplier', method: 'GET', target: '/supplier/buyers?limit=5', expect: 200 },
    { name: 'buyer', caller: 'supplier', method: 'GET', target: '/supplier/buyers/byr_demo', expect: 200 },
    {
      name: 'patch-buyer-stale',
      caller: 'supplier',
      method: 'PATCH',
      target: '/supplier/buyers/byr_demo',
      headers: { 'If-Match': '"stale"' },
      body: json({ erp_ref: 'ERP-1' }),
      expect: 412,
    },
    {
      name: 'patch-buyer',
      caller: 'supplier',
      method: 'PATCH',
      target: '/supplier/buyers/byr_demo',
      body: json({ customer_number: 'C-10042', erp_ref: 'ERP-1' }),
      expect: 200,
    },
    {
      name: 'invite',
      caller: 'supplier',
      method: 'POST',
      target: '/supplier/buyer-invitations',
      headers: { 'Idempotency-Key': key('invite') },
      body: json({ business_name: 'Cafe Sud', contact_email: 'owner@cafe-sud.example' }),
      expect: 201,
    },
    {
      name: 'invite-replay-other-body',
      caller: 'supplier',
      method: 'POST',
      target: '/supplier/buyer-invitations',
      headers: { 'Idempotency-Key': key('invite') },
      body: json({ business_name: 'Cafe Ouest', contact_email: 'owner@cafe-ouest.example' }),
      expect: 409,
    },
    {
      name: 'document',
      caller: 'supplier',
      method: 'POST',
      target: '/supplier/documents',
      headers: { 'Idempotency-Key': key('DN-P1') },
      body: json({
        type: 'delivery_note',
        number: `DN-${ctx.runId}`,
        date: '2026-11-21',
        buyer_id: 'byr_demo',
        currency: 'ILS',
        totals: { before_vat: '10.00', vat: '1.80', with_vat: '11.80' },
        lines: [{ sku: 'VEG-0001', name: 'Tomatoes', quantity: '1', unit_price: '10.00', total: '10.00' }],
      }),
      expect: 201,
    },
    {
      name: 'document-read',
      caller: 'supplier',
      method: 'GET',
      target: `/supplier/documents/${idOf('document')}?expand=lines,files,history`,
      expect: 200,
    },
    {
      name: 'documents',
      caller: 'supplier',
      method: 'GET',
      target: '/supplier/documents?type=invoice,credit_note&limit=20',
      expect: 200,
    },
    {
      name: 'product-create',
      caller: 'supplier',
      method: 'PUT',
      target: `/supplier/products/P-${ctx.runId}`,
      body: json({ name: 'Olive oil 5 l', unit: 'unit', package_quantity: '1', vat_exempt: false }),
      expect: 201,
    },
    {
      name: 'product-update',
      caller: 'supplier',
      method: 'PUT',
      target: `/supplier/products/P-${ctx.runId}`,
      body: json({ name: 'Olive oil 5 l', unit: 'unit' }),
      expect: 200,
    },
    {
      name: 'availability',
      caller: 'supplier',
      method: 'POST',
      target: `/supplier/products/P-${ctx.runId}/availability`,
      body: json({ available: false, until: '2026-12-31', reason: 'Harvest' }),
      expect: 200,
    },
    {
      name: 'products-batch',
      caller: 'supplier',
      method: 'POST',
      target: '/supplier/products/batch',
      body: json({ items: [{ sku: `B-${ctx.runId}`, name: 'Flour 25 kg', unit: 'kg' }] }),
      expect: 200,
    },
    {
      name: 'products-batch-all-failed',
      caller: 'supplier',
      method: 'POST',
      target: '/supplier/products/batch',
      body: json({
        items: [{ sku: `C-${ctx.runId}`, name: 'Salt', unit: 'kg', image_file_id: 'file_missing' }],
      }),
      expect: 422,
    },
    { name: 'price-lists', caller: 'supplier', method: 'GET', target: '/supplier/price-lists', expect: 200 },
    {
      name: 'prices',
      caller: 'supplier',
      method: 'PUT',
      target: `/supplier/price-lists/${firstId(answers.get('price-lists'))}/prices`,
      body: json({ items: [{ sku: `P-${ctx.runId}`, price: '42.00' }] }),
      expect: 200,
    },
    {
      name: 'assign',
      caller: 'supplier',
      method: 'POST',
      target: `/supplier/price-lists/${firstId(answers.get('price-lists'))}/buyers`,
      body: json({ buyer_id: 'byr_demo' }),
      expect: 204,
    },
    {
      name: 'unassign',
      caller: 'supplier',
      method: 'DELETE',
      target: `/supplier/price-lists/${firstId(answers.get('price-lists'))}/buyers/byr_demo`,
      expect: 204,
    },
    {
      name: 'product-delete',
      caller: 'supplier',
      method: 'DELETE',
      target: `/supplier/products/P-${ctx.runId}`,
      expect: 204,
    },
    {
      name: 'file',
      caller: 'supplier',
      method: 'POST',
      target: '/files',
      body: {
        kind: 'multipart',
        fields: { purpose: 'document_attachment' },
        file: { name: 'dn.pdf', content: '%PDF-1.4 test' },
      },
      expect: 201,
    },
    { name: 'file-read', caller: 'supplier', method: 'GET', target: `/files/${idOf('file')}`, expect: 200 },
    {
      name: 'webhook',
      caller: 'supplier',
      method: 'POST',
      target: '/webhooks',
      body: json({ url: ctx.receiverUrl, events: ['order.created', 'ping'], description: 'ERP' }),
      expect: 201,
    },
    { name: 'webhooks', caller: 'supplier', method: 'GET', target: '/webhooks', expect: 200 },
    {
      name: 'webhook-read',
      caller: 'supplier',
      method: 'GET',
      target: `/webhooks/${idOf('webhook')}`,
      expect: 200,
    },
    {
      name: 'webhook-patch',
      caller: 'supplier',
      method: 'PATCH',
      target: `/webhooks/${idOf('webhook')}`,
      body: json({ status: 'disabled' }),
      expect: 200,
    },
    {
      name: 'webhook-enable',
      caller: 'supplier',
      method: 'PATCH',
      target: `/webhooks/${idOf('webhook')}`,
      body: json({ status: 'active' }),
      expect: 200,
    },
    {
      name: 'webhook-test',
      caller: 'supplier',
      method: 'POST',
      target: `/webhooks/${idOf('webhook')}/test`,
      expect: 200,
    },
    {
      name: 'deliveries',
      caller: 'supplier',
      method: 'GET',
      target: `/webhooks/${idOf('webhook')}/deliveries?limit=10`,
      expect: 200,
    },
    {
      name: 'redeliver',
      caller: 'supplier',
      method: 'POST',
      target: `/webhooks/${idOf('webhook')}/deliveries/${firstId(answers.get('deliveries'))}/redeliver`,
      expect: 202,
    },
    {
      name: 'webhook-delete',
      caller: 'supplier',
      method: 'DELETE',
      target: `/webhooks/${idOf('webhook')}`,
      expect: 204,
    },
    { name: 'wrong-side', caller: 'buyer', method: 'GET', target: '/supplier/orders', expect: 403 },
    { name: 'branches', caller: 'buyer', method: 'GET', target: '/branches', expect: 200 },
    { name: 'purchase-types', caller: 'buyer', method: 'GET', target: '/purchase-types', expect: 200 },
    { name: 'suppliers', caller: 'buyer', method: 'GET', target: '/suppliers?limit=200', expect: 200 },
    {
      name: 'supplier',
      caller: 'buyer',
      method: 'GET',
      target: `/suppliers/${firstId(answers.get('suppliers'))}`,
      expect: 200,
    },
    { name: 'catalog', caller: 'buyer', method: 'GET', target: '/products?limit=50', expect: 200 },
    { name: 'categories', caller: 'buyer', method: 'GET', target: '/expense-categories', expect: 200 },
    { name: 'accounts', caller: 'buyer', method: 'GET', target: '/expense-accounts', expect: 200 },
    { name: 'mappings', caller: 'buyer', method: 'GET', target: '/account-mappings', expect: 200 },
    {
      name: 'purchase-orders',
      caller: 'buyer',
      method: 'GET',
      target: '/orders?status=approved,pending_approval&expand=-lines',
      expect: 200,
    },
    {
      name: 'purchase-documents',
      caller: 'buyer',
      method: 'GET',
      target: '/documents?limit=20&expand=history',
      expect: 200,
    },
    {
      name: 'purchase-document',
      caller: 'buyer',
      method: 'GET',
      target: `/documents/${firstId(answers.get('purchase-documents'))}`,
      expect: 200,
    },
    { name: 'expenses', caller: 'buyer', method: 'GET', target: '/expenses?limit=20', expect: 200 },
    {
      name: 'journal',
      caller: 'buyer',
      method: 'GET',
      target: '/accounting/journal-lines?status=approved_for_export&limit=200',
      expect: 200,
    },
    {
      name: 'export',
      caller: 'buyer',
      method: 'POST',
      target: '/accounting/exports',
      headers: { 'Idempotency-Key': key('export') },
      body: json({ journal_line_ids: ctx.journalLineIds, target: 'hashavshevet' }),
      expect: 201,
    },
    {
      name: 'export-again',
      caller: 'buyer',
      method: 'POST',
      target: '/accounting/exports',
      headers: { 'Idempotency-Key': key('export-2') },
      body: json({ journal_line_ids: ctx.journalLineIds }),
      expect: 409,
    },
    {
      name: 'export-read',
      caller: 'buyer',
      method: 'GET',
      target: `/accounting/exports/${idOf('export')}`,
      expect: 200,
    },
    {
      name: 'z-reports-post',
      caller: 'buyer',
      method: 'POST',
      target: '/sales/z-reports',
      body: json({
        items: [
          {
            branch_id: 'br_tlv',
            z_number: `Z${ctx.runId}`,
            closed_at: '2026-11-20T23:10:00+02:00',
            total_before_vat: '1000.00',
          },
        ],
      }),
      expect: 200,
    },
    {
      name: 'z-reports',
      caller: 'buyer',
      method: 'GET',
      target: '/sales/z-reports?from=2026-01-01&to=2026-12-31',
      expect: 200,
    },
    {
      name: 'item-sales-post',
      caller: 'buyer',
      method: 'POST',
      target: '/sales/item-sales',
      body: json({
        items: [
          {
            branch_id: 'br_tlv',
            z_number: `Z${ctx.runId}`,
            value_date: '2026-11-20T23:10:00+02:00',
            item_code: 'A1',
            item_name: 'Shakshuka',
            quantity: '2',
            unit_price: '48.00',
            total: '96.00',
            line_number: 1,
          },
        ],
      }),
      expect: 200,
    },
    {
      name: 'item-sales',
      caller: 'buyer',
      method: 'GET',
      target: `/sales/item-sales?z_number=Z${ctx.runId}`,
      expect: 200,
    },
    { name: 'counts', caller: 'buyer', method: 'GET', target: '/inventory-counts?expand=lines', expect: 200 },
    {
      name: 'count',
      caller: 'buyer',
      method: 'GET',
      target: `/inventory-counts/${firstId(answers.get('counts'))}`,
      expect: 200,
    },
    {
      name: 'food-cost',
      caller: 'buyer',
      method: 'GET',
      target: '/reports/food-cost?from=2026-01-01&to=2026-12-31',
      expect: 200,
    },
    {
      name: 'purchases-report',
      caller: 'buyer',
      method: 'GET',
      target: '/reports/purchases?from=2026-01-01&to=2026-12-31&group_by=supplier',
      expect: 200,
    },
    {
      name: 'expenses-report',
      caller: 'buyer',
      method: 'GET',
      target: '/reports/expenses?from=2026-01-01&to=2026-12-31&group_by=category,branch',
      expect: 200,
    },
    { name: 'pnl', caller: 'buyer', method: 'GET', target: '/reports/pnl?period=2026-10', expect: 200 },
    {
      name: 'bulk-export',
      caller: 'enterprise',
      method: 'POST',
      target: '/exports',
      body: json({ resources: ['orders'], format: 'ndjson' }),
      expect: 202,
    },
    {
      name: 'bulk-export-read',
      caller: 'enterprise',
      method: 'GET',
      target: `/exports/${idOf('bulk-export')}`,
      expect: 200,
    },
    { name: 'audit', caller: 'enterprise', method: 'GET', target: '/audit/requests?limit=20', expect: 200 },
    { name: 'events', caller: 'enterprise', method: 'GET', target: '/events?limit=20', expect: 200 },
    { name: 'plan-required', caller: 'buyer', method: 'GET', target: '/audit/requests', expect: 403 },
  ];
}

function nextCursor(body: unknown): string {
  const cursor =
    typeof body === 'object' && body !== null ? (body as { next_cursor?: unknown }).next_cursor : null;
  return typeof cursor === 'string' ? cursor : 'missing';
}

function firstId(body: unknown): string {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  const first: unknown = Array.isArray(data) ? data[0] : undefined;
  const id = typeof first === 'object' && first !== null ? (first as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : 'missing';
}

/**
 * Requests the document forbids that the sandbox once accepted (found by the generated traffic): Prism must
 * refuse them, and so must the sandbox when called directly.
 */
export function forbiddenSteps(ctx: ScenarioContext): ScenarioStep[] {
  const sale = {
    branch_id: 'br_tlv',
    z_number: `Z${ctx.runId}`,
    value_date: '2026-11-20T23:10:00+02:00',
    item_code: 'A2',
    item_name: 'Hummus',
    quantity: '1',
    unit_price: '32.00',
    total: '32.00',
  };
  const plainHttp = new URL(ctx.receiverUrl);
  plainHttp.protocol = 'http:';
  return [
    {
      name: 'webhook-plain-http',
      caller: 'supplier',
      method: 'POST',
      target: '/webhooks',
      body: json({ url: plainHttp.href, events: ['ping'] }),
      expect: 422,
    },
    {
      name: 'item-sales-unknown-field',
      caller: 'buyer',
      method: 'POST',
      target: '/sales/item-sales',
      body: json({ items: [sale], note: 'not a field' }),
      expect: 422,
    },
    {
      name: 'z-reports-unknown-field',
      caller: 'buyer',
      method: 'POST',
      target: '/sales/z-reports',
      body: json({
        items: [
          {
            branch_id: 'br_tlv',
            z_number: `Z${ctx.runId}`,
            closed_at: '2026-11-20T23:10:00+02:00',
            total_before_vat: '1.00',
          },
        ],
        source: 'pos',
      }),
      expect: 422,
    },
  ];
}
