/** Response payloads that satisfy the contract's schemas, for the scripted server. */
export const TEST_KEY = 'svc_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
export const LIVE_KEY = 'svc_live_0a1b2c3d4e5f60718293a4b5c6d7e8f9';

export function me(perMinute = 600): Record<string, unknown> {
  return {
    account: { id: 'acc_sup', name: 'Galil Produce', type: 'supplier', parent_id: null },
    client: {
      id: 'cli_1',
      name: 'ERP link',
      environment: 'sandbox',
      key_prefix: 'svc_test_',
      ip_allowlist: [],
      branch_ids: null,
    },
    scopes: ['supplier.orders:read'],
    plan: 'supplier',
    features: ['webhooks'],
    rate_limit: { per_minute: perMinute, per_day: null },
    api_version: '2',
  };
}

export function supplierBuyer(id = 'buy_1'): Record<string, unknown> {
  return {
    id,
    name: 'Cafe Yafo',
    tax_id: null,
    status: 'active',
    customer_number: 'C-778',
    erp_ref: null,
    branches: [],
    min_order: null,
    payment_terms: null,
    price_list_id: null,
    created_at: '2026-11-01T08:00:00Z',
    updated_at: '2026-11-20T08:00:00Z',
  };
}

export function page(data: unknown[], nextCursor: string | null): Record<string, unknown> {
  return { data, next_cursor: nextCursor, has_more: nextCursor !== null };
}

export function batchResponse(count: number, failedIndexes: readonly number[] = []): Record<string, unknown> {
  const items = Array.from({ length: count }, (_unused, index) =>
    failedIndexes.includes(index)
      ? { index, key: `SKU-${index}`, status: 'failed', errors: [{ field: 'name', code: 'required' }] }
      : { index, key: `SKU-${index}`, status: 'created', id: `prd_${index}` },
  );
  return {
    summary: {
      total: count,
      succeeded: count - failedIndexes.length,
      failed: failedIndexes.length,
      skipped: 0,
    },
    items,
  };
}
