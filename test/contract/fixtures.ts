/** Example payloads built from the contract's field tables (parts 2, 6 and 7). */

export function exampleOrder(): Record<string, unknown> {
  return {
    id: 'ord_1001',
    number: 'PO-2026-1001',
    status: 'partially_approved',
    buyer: { id: 'buy_1', name: 'Cafe Yafo', customer_number: 'C-778' },
    supplier: { id: 'sup_1', name: 'Galil Produce' },
    branch: { id: 'br_1', name: 'Jaffa', tax_id: null },
    purchase_type: 'FC',
    sent_at: '2026-11-20T07:30:00+02:00',
    delivery_date: '2026-11-23',
    delivery_window: { from: '06:00', to: '09:30' },
    currency: 'ILS',
    totals: { before_vat: '1250.50', vat: '225.09', with_vat: '1475.59', discount: '0.00' },
    lines: [
      {
        id: 'ol_1',
        sku: 'TOM-1KG',
        name: 'Tomatoes',
        quantity: '12.5',
        unit: 'kg',
        unit_price: '8.04',
        total: '100.50',
        discount_pct: null,
        vat_exempt: false,
        quantity_confirmed: '10',
        substitute_sku: null,
        notes: null,
      },
    ],
    notes: null,
    external_ref: null,
    acknowledged_at: null,
    related_document_ids: [],
    files: [{ id: 'file_1', name: 'order.pdf', content_type: 'application/pdf', size_bytes: 2048 }],
    history: [
      {
        at: '2026-11-20T07:30:00Z',
        action: 'sent',
        actor: { type: 'user', id: 'u_1', name: 'Dana' },
        changes: { status: { from: 'draft', to: 'pending_approval' } },
      },
    ],
    created_at: '2026-11-20T07:00:00Z',
    updated_at: '2026-11-20T08:15:00.250Z',
    deleted_at: null,
  };
}

export function exampleCreditNote(): Record<string, unknown> {
  return {
    id: 'doc_77',
    type: 'credit_note',
    number: 'CN-5512',
    date: '2026-11-21',
    accounting_period: '2026-11',
    due_date: null,
    supplier: { id: 'sup_1', name: 'Galil Produce' },
    buyer: { id: 'buy_1', name: 'Cafe Yafo' },
    branch: { id: 'br_1', name: 'Jaffa', tax_id: '514000001' },
    purchase_type: null,
    source: 'purchase',
    order_ids: ['ord_1001'],
    currency: 'ILS',
    totals: { before_vat: '-40.20', vat: '-7.24', with_vat: '-47.44' },
    allocation_number: null,
    lines: [
      {
        id: 'dl_1',
        sku: 'TOM-1KG',
        name: 'Tomatoes',
        quantity: '-5',
        unit: 'kg',
        unit_price: '8.04',
        total: '-40.20',
        order_id: 'ord_1001',
        order_line_id: 'ol_1',
        quantity_received: null,
      },
    ],
    buyer_status: 'received_with_differences',
    differences: [
      {
        line_id: 'dl_1',
        sku: 'TOM-1KG',
        field: 'quantity',
        issued: '-5',
        received: '-4',
        note: 'one box kept',
      },
    ],
    payment_status: 'unpaid',
    paid_at: null,
    export_status: 'not_ready',
    exported_at: null,
    files: [],
    external_ref: 'ERP-CN-5512',
    created_at: '2026-11-21T10:00:00+02:00',
    updated_at: '2026-11-21T10:05:00+02:00',
  };
}

export function exampleJournalLine(): Record<string, unknown> {
  return {
    id: 'jl_1',
    document_id: 'doc_77',
    document_type: 'invoice',
    document_number: 'INV-9001',
    source: 'purchase',
    side: 'vat',
    account: '2210',
    counter_account: '4001',
    amount: '225.09',
    currency: 'ILS',
    description: 'Input VAT INV-9001',
    vendor_id: 'ven_1',
    vendor_tax_id: '514000002',
    branch_id: 'br_1',
    branch_tax_id: null,
    purchase_type: 'FC',
    category_id: null,
    reference: 'INV-9001',
    allocation_number: '123456789',
    doc_date: '2026-11-20',
    accounting_period: '2026-11',
    movement_type_code: null,
    batch_number: null,
    status: 'approved_for_export',
    export_batch_id: null,
    exported_at: null,
    updated_at: '2026-11-21T02:00:00Z',
  };
}

export function exampleEvent(): Record<string, unknown> {
  return {
    id: 'evt_abc',
    type: 'order.created',
    api_version: '2',
    occurred_at: '2026-11-20T07:30:01+02:00',
    account_id: 'acc_sup_1',
    data: { object: 'order', ...exampleOrder() },
  };
}

export function exampleProblem(): Record<string, unknown> {
  return {
    type: 'https://docs.example.test/errors/validation_error',
    title: 'Validation failed',
    status: 422,
    code: 'validation_error',
    detail: 'One or more fields are invalid.',
    instance: '/v2/supplier/documents',
    request_id: 'req_123',
    errors: [{ field: 'lines[0].total', code: 'invalid_format', message: 'expected money' }],
  };
}

export function exampleDocumentRequest(): Record<string, unknown> {
  return {
    type: 'invoice',
    number: 'INV-9001',
    date: '2026-11-20',
    buyer_id: 'buy_1',
    currency: 'ILS',
    totals: { before_vat: '1250.50', vat: '225.09', with_vat: '1475.59' },
    lines: [
      { sku: 'TOM-1KG', name: 'Tomatoes', quantity: '12.5', unit_price: '8.04', total: '100.50' },
      { sku: 'OIL-5L', name: 'Olive oil', quantity: '10', unit_price: '115.00', total: '1150.00' },
    ],
    file_ids: ['file_1'],
  };
}
