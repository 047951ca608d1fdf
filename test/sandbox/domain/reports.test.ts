import { describe, expect, it } from 'vitest';
import { strict } from '../../../src/contract/index.js';
import { createHarness, type ProblemLike } from './harness.js';

/** Known figures in March 2027, a month the seed never touches. */
async function knownMonth() {
  const h = createHarness();
  const doc = (type: string, number: string, beforeVat: string, vat: string, withVat: string) => ({
    type,
    number,
    date: '2027-03-10',
    buyer_id: 'byr_demo',
    branch_id: 'br_tlv',
    purchase_type: 'FC',
    currency: 'ILS',
    totals: { before_vat: beforeVat, vat, with_vat: withVat },
    lines: [{ sku: 'MEA-0076', name: 'Chicken', quantity: '1', unit_price: beforeVat, total: beforeVat }],
  });
  expect(
    (
      await h.call('POST', '/supplier/documents', {
        body: doc('invoice', 'R-1', '150.00', '27.00', '177.00'),
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await h.call('POST', '/supplier/documents', {
        body: doc('credit_note', 'R-2', '50.00', '9.00', '59.00'),
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await h.call('POST', '/supplier/documents', {
        body: doc('delivery_note', 'R-3', '999.00', '0.00', '999.00'),
      })
    ).status,
  ).toBe(201);
  const z = {
    branch_id: 'br_tlv',
    z_number: 'R-Z1',
    closed_at: '2027-03-10T22:00:00Z',
    total_before_vat: '400.00',
  };
  expect(
    (
      (await h.call('POST', '/sales/z-reports', { body: { items: [z] } })).body as {
        summary: { succeeded: number };
      }
    ).summary.succeeded,
  ).toBe(1);
  const expense = {
    vendor_id: 'ven_electric',
    doc_type: 'tax_invoice',
    doc_date: '2027-03-05',
    branch_id: 'br_tlv',
    vat_mode: 'with_vat',
    totals: { before_vat: '1000.00', vat: '180.00', with_vat: '1180.00' },
    lines: [{ category_id: 'cat_utilities', amount_before_vat: '1000.00', vat_amount: '180.00' }],
    file_ids: ['file_known'],
  };
  expect((await h.call('POST', '/expenses', { body: expense })).status).toBe(201);
  return h;
}

const march = { from: '2027-03-01', to: '2027-03-31' };

describe('reports from known data', () => {
  it('food cost: invoices minus credit notes over Z-report sales, delivery notes not counted', async () => {
    const h = await knownMonth();
    const report = strict.FoodCostReport.parse(
      (await h.call('GET', '/reports/food-cost', { query: { ...march, branch_id: 'br_tlv' } })).body,
    ) as { rows: unknown[]; totals: unknown };
    expect(report.rows).toEqual([
      expect.objectContaining({
        branch_id: 'br_tlv',
        purchases: '100.00',
        sales: '400.00',
        food_cost_pct: '25.00',
      }),
    ]);
    expect(report.totals).toEqual(
      expect.objectContaining({ purchases: '100.00', sales: '400.00', food_cost_pct: '25.00' }),
    );
  });

  it('purchases by supplier and expenses by category', async () => {
    const h = await knownMonth();
    const purchases = strict.PurchasesReport.parse(
      (await h.call('GET', '/reports/purchases', { query: { ...march, group_by: 'supplier' } })).body,
    ) as { rows: unknown[] };
    expect(purchases.rows).toEqual([
      expect.objectContaining({ supplier_id: 'sup_demo', documents_count: 2, purchases: '100.00' }),
    ]);
    const expenses = strict.ExpensesReport.parse(
      (await h.call('GET', '/reports/expenses', { query: { ...march, group_by: 'category,branch' } })).body,
    ) as { rows: unknown[]; totals: unknown };
    expect(expenses.rows).toEqual([
      expect.objectContaining({
        category_id: 'cat_utilities',
        branch_id: 'br_tlv',
        expenses: '1000.00',
        vat: '180.00',
        total: '1180.00',
      }),
    ]);
    expect(expenses.totals).toEqual({ expenses: '1000.00', vat: '180.00', total: '1180.00' });
  });

  it('pnl: revenue, costs by pl_group, profit and percentages with 2 digits', async () => {
    const h = await knownMonth();
    const pnl = strict.PnlReport.parse(
      (await h.call('GET', '/reports/pnl', { query: { period: '2027-03' } })).body,
    ) as { rows: { pl_group: string; amount: string; pct_of_revenue: string | null }[]; totals: unknown };
    const byGroup = Object.fromEntries(
      pnl.rows.map((row) => [row.pl_group, [row.amount, row.pct_of_revenue]]),
    );
    expect(byGroup['revenue']).toEqual(['400.00', '100.00']);
    expect(byGroup['cost_of_sales']).toEqual(['100.00', '25.00']);
    expect(byGroup['operating_expenses']).toEqual(['1000.00', '250.00']);
    expect(pnl.totals).toEqual({
      branch_id: null,
      revenue: '400.00',
      costs: '1100.00',
      profit: '-700.00',
      profit_pct: '-175.00',
    });
  });

  it('rejects a missing range and an unknown group_by', async () => {
    const h = createHarness();
    const missing = await h.call('GET', '/reports/food-cost', { query: { from: '2027-03-01' } });
    expect((missing.body as ProblemLike).errors).toEqual([
      expect.objectContaining({ field: 'to', code: 'required' }),
    ]);
    const unknown = await h.call('GET', '/reports/purchases', { query: { ...march, group_by: 'weather' } });
    expect(unknown.status).toBe(422);
    expect((unknown.body as ProblemLike).errors).toEqual([
      expect.objectContaining({ field: 'group_by', code: 'unsupported_value' }),
    ]);
  });
});
