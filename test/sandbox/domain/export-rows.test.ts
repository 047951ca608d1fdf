import { describe, expect, it } from 'vitest';
import { strict } from '../../../src/contract/index.js';
import { DEMO_BUYER_ACCOUNT_ID, DEMO_SUPPLIER_ACCOUNT_ID } from '../../../src/sandbox/http/types.js';
import { createHarness } from './harness.js';

describe('bulk export rows and invitations', () => {
  it('filters rows by inclusive date range and branch, per account', () => {
    const h = createHarness();
    const all = [...h.domain.exportRows(DEMO_BUYER_ACCOUNT_ID, 'journal_lines', {})];
    expect(all.length).toBeGreaterThan(10);
    const dates = all.map((row) => String(row['doc_date'])).sort();
    const middle = dates[Math.floor(dates.length / 2)] ?? '';
    const filtered = [
      ...h.domain.exportRows(DEMO_BUYER_ACCOUNT_ID, 'journal_lines', {
        from: middle,
        to: middle,
        branchIds: ['br_tlv', 'br_jlm'],
      }),
    ];
    for (const row of filtered) {
      strict.JournalLine.parse(row);
      expect(row['doc_date']).toBe(middle);
      expect(['br_tlv', 'br_jlm']).toContain(row['branch_id']);
    }
    expect(filtered.length).toBe(
      all.filter(
        (row) => row['doc_date'] === middle && ['br_tlv', 'br_jlm'].includes(String(row['branch_id'])),
      ).length,
    );
    const supplierOrders = [...h.domain.exportRows(DEMO_SUPPLIER_ACCOUNT_ID, 'orders', {})];
    expect(supplierOrders.length).toBeGreaterThan(0);
    for (const row of supplierOrders) strict.Order.parse(row);
    expect([...h.domain.exportRows('acc_someone_else', 'orders', {})]).toEqual([]);
  });

  it('an invitation is accepted into a linked buyer (buyer.linked) and expires after 14 days', async () => {
    const h = createHarness();
    const first = (
      await h.call('POST', '/supplier/buyer-invitations', {
        body: { business_name: 'Pita Place', contact_email: 'pita@example.com' },
      })
    ).body as { id: string };
    const buyer = h.action<{ id: string; name: string }>('accept_invitation', { invitation_id: first.id });
    expect(buyer.name).toBe('Pita Place');
    expect((await h.call('GET', `/supplier/buyers/${buyer.id}`)).status).toBe(200);
    expect(h.events.filter((event) => event.type === 'buyer.linked')).toHaveLength(1);
    const second = (
      await h.call('POST', '/supplier/buyer-invitations', {
        body: { business_name: 'Late Cafe', contact_email: 'late@example.com' },
      })
    ).body as { id: string };
    h.clock.advance(14 * 86_400_000);
    expect(() => h.action('accept_invitation', { invitation_id: second.id })).toThrow(/expired/);
  });
});
