/** A small batch plan with the shapes a stored plan must keep (shared by the stored-plan and CLI tests). */
import { expect } from 'vitest';
import type { JournalLine } from '../../../src/contract/index.js';
import { journalExportOptionsSchema } from '../../../src/flows/journal-export/index.js';
import { GroupMapper, groupByDocument } from '../../../src/flows/shared/journal-mapping/mapping.js';
import { buildPlan, plannedDocument, type BatchPlan } from '../../../src/flows/journal-export/plans.js';

function line(id: string, over: Partial<JournalLine>): JournalLine {
  return {
    id,
    document_id: 'doc1',
    document_type: 'invoice',
    document_number: 'INV-7',
    source: 'purchase',
    side: 'debit',
    account: '5120',
    counter_account: '40001',
    amount: '100.00',
    currency: 'ILS',
    description: 'veg',
    vendor_id: 'sup1',
    vendor_tax_id: '514713288',
    branch_id: 'br_tlv',
    branch_tax_id: null,
    purchase_type: 'FC',
    category_id: null,
    reference: '7',
    allocation_number: null,
    doc_date: '2026-03-31',
    accounting_period: '2026-04',
    movement_type_code: null,
    batch_number: null,
    status: 'approved_for_export',
    export_batch_id: null,
    exported_at: null,
    updated_at: '2026-04-01T00:00:00Z',
    ...over,
  } as JournalLine;
}

/** Three documents: B's credit line sorts before its debit, C has a zero line (no entry), "__proto__" only zero lines. */
export function plan(): BatchPlan {
  const mapper = new GroupMapper(
    journalExportOptionsSchema.parse({ reference2_from: 'allocation_number' }),
    {},
  );
  const groups = groupByDocument([
    line('a1', { document_id: 'A', allocation_number: '88' }),
    line('a2', { document_id: 'A', side: 'credit', counter_account: null }),
    line('b9', { document_id: 'B', doc_date: '2026-03-01', amount: '50.00' }),
    line('b1', { document_id: 'B', doc_date: '2026-03-01', side: 'credit', amount: '57.63' }),
    line('b5', { document_id: 'B', doc_date: '2026-03-01', side: 'vat', account: '1510', amount: '7.63' }),
    line('c1', { document_id: 'C', accounting_period: '2026-05', description: 'פירות' }),
    line('c0', { document_id: 'C', accounting_period: '2026-05', amount: '0.00' }),
    line('c2', { document_id: 'C', accounting_period: '2026-05', side: 'credit' }),
    line('d1', { document_id: '__proto__', amount: '0.00' }),
    line('d2', { document_id: '__proto__', side: 'credit', amount: '0.00' }),
  ]).map((group) => mapper.map(group));
  const ready = groups.filter((g): g is Extract<typeof g, { ok: true }> => g.ok);
  expect(ready).toHaveLength(4);
  return buildPlan(
    ready.map((g) => plannedDocument(g)),
    'books',
    7,
  );
}
