import { describe, expect, it } from 'vitest';
import type { ErpCustomer } from '../../../src/connector-contract/index.js';
import type { SupplierBuyer } from '../../../src/contract/index.js';
import { buyersOptionsSchema, CustomerMatcher } from '../../../src/flows/buyers/index.js';
import { inviteCandidates } from '../../../src/flows/buyers/invite.js';

const customer = (
  customerNumber: string,
  taxId: string | null,
  erpRef: string | null = null,
): ErpCustomer => ({
  customerNumber,
  name: `Customer ${customerNumber}`,
  taxId,
  erpRef,
  email: `${customerNumber}@example.com`,
  priceList: null,
});

const buyer = (fields: Partial<SupplierBuyer>): SupplierBuyer =>
  ({
    id: 'byr_1',
    name: 'Cafe X',
    status: 'active',
    updated_at: '2026-01-01T00:00:00Z',
    ...fields,
  }) as SupplierBuyer;

const customers = [
  customer('C-1', '511111111', 'R-1'),
  customer('C-2', '522222222'),
  customer('C-3', '522222222'),
];

describe('matching buyers to ERP customers', () => {
  it('follows match_by in order', () => {
    const matcher = new CustomerMatcher(customers, buyersOptionsSchema.parse({}), {
      buyers: { byr_1: 'C-2' },
    });
    const byNumber = matcher.match(buyer({ customer_number: 'C-1' }));
    expect(byNumber.ok && [byNumber.customer.customerNumber, byNumber.rule]).toEqual([
      'C-1',
      'customer_number',
    ]);
    const byRef = matcher.match(buyer({ erp_ref: 'R-1' }));
    expect(byRef.ok && byRef.rule).toBe('erp_ref');
    const byMapping = matcher.match(buyer({ tax_id: '511111111' }));
    expect(byMapping.ok && [byMapping.customer.customerNumber, byMapping.rule]).toEqual(['C-2', 'mapping']);
  });

  it('matches a unique tax id only, and says why a shared one is not enough', () => {
    const matcher = new CustomerMatcher(customers, buyersOptionsSchema.parse({ match_by: ['tax_id'] }), {});
    const unique = matcher.match(buyer({ tax_id: '511111111' }));
    expect(unique.ok && unique.customer.customerNumber).toBe('C-1');
    expect(matcher.match(buyer({ tax_id: '522222222' }))).toEqual({
      ok: false,
      reason: 'no ERP customer for buyer byr_1 "Cafe X" (tax_id 522222222 shared by 2 ERP customers)',
    });
  });

  it('invites only unlinked customers with an e-mail, limited to the configured list', () => {
    const options = buyersOptionsSchema.parse({ invite: { enabled: true } }).invite;
    const withoutEmail = { ...customer('C-4', null), email: null };
    const all = inviteCandidates([...customers, withoutEmail], new Set(['C-1']), options);
    expect(all.map((c) => c.customerNumber)).toEqual(['C-2', 'C-3']);
    const only = inviteCandidates(customers, new Set(), { ...options, customers: ['C-3'] });
    expect(only.map((c) => c.customerNumber)).toEqual(['C-3']);
  });
});
