import { describe, expect, it } from 'vitest';
import type { JournalLine } from '../../../src/contract/index.js';
import { LineStaging } from '../../../src/flows/journal-export/staging.js';

function line(id: string, documentId: string, over: Partial<JournalLine> = {}): JournalLine {
  return {
    id,
    document_id: documentId,
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
    vendor_tax_id: null,
    branch_id: 'br_tlv',
    branch_tax_id: null,
    purchase_type: 'FC',
    category_id: null,
    reference: 'R-1',
    doc_date: '2026-11-03',
    accounting_period: '2026-11',
    status: 'approved_for_export',
    updated_at: '2026-11-04T10:00:00.000Z',
    ...over,
  };
}

describe('line staging', () => {
  it('hands out each document once with all its lines, wherever they were listed, keeping the later copy of a line', () => {
    const staging = new LineStaging();
    try {
      staging.append([line('b1', 'B'), line('a1', 'A'), line('c1', 'C')]);
      staging.append([line('a2', 'A', { side: 'credit' }), line('b2', 'B', { side: 'credit' })]);
      // b1 listed again (re-stamped during the pull), with a changed description: the later copy counts.
      staging.append([line('b1', 'B', { description: 'later' }), line('a3', 'A', { side: 'vat' })]);
      staging.append([]);

      const documents = [...staging.documents()];
      expect(documents.map((d) => d.documentId)).toEqual(['A', 'B', 'C']);
      expect(documents.map((d) => d.lines.map((l) => l.id).sort())).toEqual([
        ['a1', 'a2', 'a3'],
        ['b1', 'b2'],
        ['c1'],
      ]);
      const b1 = documents[1]?.lines.find((l) => l.id === 'b1');
      expect(b1?.description).toBe('later');
    } finally {
      staging.close();
    }
  });

  it('keeps every field the export reads; absent optional fields come back as null', () => {
    const staging = new LineStaging();
    try {
      const full = line('x1', 'X', {
        counter_account: null,
        vendor_tax_id: '512345678',
        purchase_type: 'food',
        allocation_number: '123456789',
        movement_type_code: 'MT',
      });
      const sparse = line('x2', 'X', { side: 'credit', amount: '-3.10' });
      delete sparse.counter_account;
      staging.append([full, sparse]);
      const [document] = [...staging.documents()];
      const byId = new Map(document?.lines.map((l) => [l.id, l]));
      expect(byId.get('x1')).toEqual({
        id: 'x1',
        document_id: 'X',
        document_type: 'invoice',
        document_number: 'INV-7',
        source: 'purchase',
        side: 'debit',
        account: '5120',
        counter_account: null,
        amount: '100.00',
        currency: 'ILS',
        description: 'veg',
        vendor_id: 'sup1',
        vendor_tax_id: '512345678',
        branch_id: 'br_tlv',
        purchase_type: 'food',
        reference: 'R-1',
        allocation_number: '123456789',
        doc_date: '2026-11-03',
        accounting_period: '2026-11',
        movement_type_code: 'MT',
      });
      expect(byId.get('x2')).toMatchObject({
        side: 'credit',
        amount: '-3.10',
        counter_account: null,
        allocation_number: null,
      });
    } finally {
      staging.close();
    }
  });

  it('can be left in the middle of a walk and closed', () => {
    const staging = new LineStaging();
    staging.append([line('a1', 'A'), line('b1', 'B'), line('c1', 'C')]);
    for (const document of staging.documents()) {
      expect(document.documentId).toBe('A');
      break;
    }
    expect(() => staging.close()).not.toThrow();
  });
});
