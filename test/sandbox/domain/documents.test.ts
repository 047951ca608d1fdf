import { describe, expect, it } from 'vitest';
import { strict } from '../../../src/contract/index.js';
import { parseMoney } from '../../../src/shared/decimal.js';
import { createHarness, documentBody, type ProblemLike } from './harness.js';

interface Line {
  id: string;
  document_id: string;
  document_type: string;
  side: string;
  amount: string;
  status: string;
}

/** sum(debit) + sum(vat) - sum(credit) for invoices, reversed for credit notes: zero when balanced. */
function imbalance(lines: readonly Line[]): bigint {
  const total = (side: string) =>
    lines.filter((line) => line.side === side).reduce((acc, line) => acc + parseMoney(line.amount), 0n);
  const reversed = lines.some((line) => line.document_type === 'credit_note');
  return reversed
    ? total('debit') - total('credit') - total('vat')
    : total('debit') + total('vat') - total('credit');
}

describe('supplier documents (G7) and the buyer moves (G9)', () => {
  it('creates a pending, unpaid, not_ready purchase document in the strict shape and tells the buyer', async () => {
    const h = createHarness();
    const reply = await h.call('POST', '/supplier/documents', {
      body: documentBody({ file_ids: ['file_known'] }),
    });
    expect(reply.status).toBe(201);
    const doc = strict.Document.parse(reply.body) as {
      id: string;
      buyer_status: string;
      payment_status: string;
      export_status: string;
      source: string;
    };
    expect([doc.buyer_status, doc.payment_status, doc.export_status, doc.source]).toEqual([
      'pending',
      'unpaid',
      'not_ready',
      'purchase',
    ]);
    expect(h.events.map((event) => event.type)).toEqual(['document.created']);
    expect((h.state()['documentTallies'] as Record<string, { creations: number }>)[doc.id]?.creations).toBe(
      1,
    );
  });

  it('rejects totals that do not add up, naming the field', async () => {
    const h = createHarness();
    const reply = await h.call('POST', '/supplier/documents', {
      body: documentBody({ totals: { before_vat: '151.00', vat: '27.00', with_vat: '178.00' } }),
    });
    expect(reply.status).toBe(422);
    expect((reply.body as ProblemLike).errors.map((item) => item.field)).toContain('totals.before_vat');
  });

  it('requires an allocation number above 5,000.00 before VAT, and only there', async () => {
    const h = createHarness();
    const big = {
      totals: { before_vat: '5000.01', vat: '900.00', with_vat: '5900.01' },
      lines: [{ sku: 'MEA-0076', name: 'Beef', quantity: '1', unit_price: '5000.01', total: '5000.01' }],
    };
    const missing = await h.call('POST', '/supplier/documents', { body: documentBody(big) });
    expect(missing.status).toBe(422);
    expect((missing.body as ProblemLike).errors).toContainEqual(
      expect.objectContaining({ field: 'allocation_number', code: 'required' }),
    );
    const atThreshold = {
      totals: { before_vat: '5000.00', vat: '900.00', with_vat: '5900.00' },
      lines: [{ sku: 'MEA-0076', name: 'Beef', quantity: '1', unit_price: '5000.00', total: '5000.00' }],
    };
    expect(
      (
        await h.call('POST', '/supplier/documents', {
          body: documentBody({ ...atThreshold, number: 'INV-T1' }),
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await h.call('POST', '/supplier/documents', {
          body: documentBody({ ...big, number: 'INV-T2', allocation_number: '123456789' }),
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await h.call('POST', '/supplier/documents', {
          body: documentBody({ ...big, type: 'delivery_note', number: 'DN-T3' }),
        })
      ).status,
    ).toBe(201);
  });

  it('answers not_found items for an unknown file and an unknown buyer; a duplicate number conflicts', async () => {
    const h = createHarness();
    const unknown = await h.call('POST', '/supplier/documents', {
      body: documentBody({ file_ids: ['file_missing'], buyer_id: 'byr_nobody' }),
    });
    expect(unknown.status).toBe(422);
    expect((unknown.body as ProblemLike).errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'file_ids[0]', code: 'not_found' }),
        expect.objectContaining({ field: 'buyer_id', code: 'not_found' }),
      ]),
    );
    expect((await h.call('POST', '/supplier/documents', { body: documentBody() })).status).toBe(201);
    const duplicate = await h.call('POST', '/supplier/documents', { body: documentBody() });
    expect(duplicate.status).toBe(409);
    const tallies = Object.values(
      h.state()['documentTallies'] as Record<string, { duplicateAttempts: number }>,
    );
    expect(tallies.filter((tally) => tally.duplicateAttempts === 1)).toHaveLength(1);
  });

  it('receipt with differences fills differences and raises document.received to the supplier', async () => {
    const h = createHarness();
    const created = (await h.call('POST', '/supplier/documents', { body: documentBody() })).body as {
      id: string;
      lines: { id: string }[];
    };
    h.events.length = 0;
    const received = h.action<{
      buyer_status: string;
      differences: { field: string; issued: string; received: string }[];
    }>('buyer_receive_document', { document_id: created.id, with_differences: true });
    expect(received.buyer_status).toBe('received_with_differences');
    expect(received.differences).toEqual([
      expect.objectContaining({ field: 'quantity', issued: '2', received: '1' }),
    ]);
    const event = h.events.find((candidate) => candidate.type === 'document.received');
    expect(event?.accountId).toBe('acc_demo_supplier');
    expect((event?.data as { differences?: unknown[] }).differences).toHaveLength(1);
    strict.Document.parse((await h.call('GET', `/supplier/documents/${created.id}`)).body);
  });

  it('approval generates balanced journal lines (invoice and credit note) approved for export, with one event', async () => {
    const h = createHarness();
    for (const [type, number] of [
      ['invoice', 'INV-B1'],
      ['credit_note', 'CN-B1'],
    ] as const) {
      const created = (await h.call('POST', '/supplier/documents', { body: documentBody({ type, number }) }))
        .body as { id: string };
      h.action('buyer_receive_document', { document_id: created.id });
      h.events.length = 0;
      const approved = h.action<{ journal_line_ids: string[] }>('buyer_approve_document', {
        document_id: created.id,
      });
      const lines = Object.values(h.state()['journalLines'] as Record<string, Line>).filter(
        (line) => line.document_id === created.id,
      );
      expect(lines.map((line) => line.id).sort()).toEqual([...approved.journal_line_ids].sort());
      expect(lines.map((line) => line.side).sort()).toEqual(
        type === 'invoice' ? ['credit', 'debit', 'debit', 'vat'] : ['credit', 'credit', 'debit', 'vat'],
      );
      expect(imbalance(lines)).toBe(0n);
      for (const line of lines) strict.JournalLine.parse(line);
      expect(h.events.map((event) => event.type).sort()).toEqual([
        'document.approved_for_export',
        'document.updated',
        'journal_lines.approved_for_export',
      ]);
    }
  });

  it('every seeded document balances and every supplier document list item is strict', async () => {
    const h = createHarness();
    const lines = Object.values(h.state()['journalLines'] as Record<string, Line>);
    const byDocument = new Map<string, Line[]>();
    for (const line of lines)
      byDocument.set(line.document_id, [...(byDocument.get(line.document_id) ?? []), line]);
    expect(byDocument.size).toBeGreaterThan(10);
    for (const group of byDocument.values()) expect(imbalance(group)).toBe(0n);
    const page = (await h.call('GET', '/supplier/documents', { query: { limit: '200' } })).body as {
      data: unknown[];
    };
    for (const doc of page.data) strict.Document.parse(doc);
  });
});
