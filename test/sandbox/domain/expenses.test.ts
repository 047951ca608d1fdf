import { describe, expect, it } from 'vitest';
import { strict } from '../../../src/contract/index.js';
import { createHarness, type ProblemLike } from './harness.js';

const expense = (overrides: Record<string, unknown> = {}) => ({
  vendor_id: 'ven_cleaning',
  doc_type: 'tax_invoice',
  doc_date: '2026-11-20',
  branch_id: 'br_jlm',
  vat_mode: 'with_vat',
  totals: { before_vat: '200.00', vat: '36.00', with_vat: '236.00' },
  lines: [{ category_id: 'cat_cleaning', amount_before_vat: '200.00', vat_amount: '36.00' }],
  file_ids: ['file_known'],
  ...overrides,
});

describe('expenses and their blocking rules (G13)', () => {
  it('creates a pending_approval expense with resolved expense accounts and raises expense.created', async () => {
    const h = createHarness();
    const reply = await h.call('POST', '/expenses', { body: expense() });
    expect(reply.status).toBe(201);
    const created = strict.Expense.parse(reply.body) as {
      id: string;
      status: string;
      lines: { expense_account: string | null }[];
    };
    expect(created.status).toBe('pending_approval');
    expect(created.lines[0]?.expense_account).toBe('6110');
    expect(h.events.map((event) => event.type)).toEqual(['expense.created']);
    h.events.length = 0;
    const approved = h.action<{ expense: { status: string }; journal_line_ids: string[] }>(
      'approve_expense',
      { expense_id: created.id },
    );
    expect(approved.expense.status).toBe('approved');
    expect(approved.journal_line_ids).toHaveLength(3);
    expect(h.events.map((event) => event.type)).toEqual([
      'expense.approved',
      'journal_lines.approved_for_export',
    ]);
  });

  it('blocks a missing attachment, a missing allocation number above 5,000 and an unmapped category', async () => {
    const h = createHarness();
    const noFile = await h.call('POST', '/expenses', { body: expense({ file_ids: [] }) });
    expect((noFile.body as ProblemLike).errors).toEqual([
      expect.objectContaining({ field: 'file_ids', code: 'attachment_required' }),
    ]);
    const big = await h.call('POST', '/expenses', {
      body: expense({
        totals: { before_vat: '6000.00', vat: '1080.00', with_vat: '7080.00' },
        lines: [{ category_id: 'cat_cleaning', amount_before_vat: '6000.00', vat_amount: '1080.00' }],
      }),
    });
    expect((big.body as ProblemLike).errors).toEqual([
      expect.objectContaining({ field: 'allocation_number', code: 'required' }),
    ]);
    const unmapped = await h.call('POST', '/expenses', {
      body: expense({
        lines: [{ category_id: 'cat_misc', amount_before_vat: '200.00', vat_amount: '36.00' }],
      }),
    });
    expect(unmapped.status).toBe(422);
    expect((unmapped.body as ProblemLike).errors).toEqual([
      expect.objectContaining({ field: 'lines[0].category_id', code: 'no_account_mapping' }),
    ]);
    expect(Object.keys(h.state()['expenses'] as object)).toHaveLength(
      Object.keys(createHarness().state()['expenses'] as object).length,
    );
  });

  it('a purchase type specific mapping wins over the null fallback', async () => {
    const h = createHarness();
    const reply = await h.call('POST', '/expenses', {
      body: expense({
        vendor_id: 'ven_dairy',
        purchase_type: 'EV',
        lines: [{ category_id: 'cat_produce', amount_before_vat: '200.00', vat_amount: '36.00' }],
      }),
    });
    expect((reply.body as { lines: { expense_account: string }[] }).lines[0]?.expense_account).toBe('5190');
  });

  it('journal lines of expenses balance, with non-deductible VAT booked as expense and credit notes reversed', async () => {
    const h = createHarness();
    const cases = [
      {
        doc_type: 'tax_invoice',
        vendor_id: 'ven_cleaning',
        category: 'cat_vehicles',
        sides: ['credit', 'debit', 'vat'],
        amounts: { debit: '212.00', vat: '24.00', credit: '236.00' },
      },
      {
        doc_type: 'credit_note',
        vendor_id: 'ven_cleaning',
        category: 'cat_cleaning',
        sides: ['credit', 'debit', 'vat'],
        amounts: { debit: '236.00', vat: '36.00', credit: '200.00' },
      },
    ];
    for (const [index, testCase] of cases.entries()) {
      const body = expense({
        doc_type: testCase.doc_type,
        doc_number: `E-${index}`,
        lines: [{ category_id: testCase.category, amount_before_vat: '200.00', vat_amount: '36.00' }],
      });
      const created = (await h.call('POST', '/expenses', { body })).body as { id: string };
      const { journal_line_ids: ids } = h.action<{ journal_line_ids: string[] }>('approve_expense', {
        expense_id: created.id,
      });
      const lines = ids.map(
        (id) => (h.state()['journalLines'] as Record<string, { side: string; amount: string }>)[id],
      );
      const bySide = Object.fromEntries(lines.map((line) => [line?.side, line?.amount]));
      expect(Object.keys(bySide).sort()).toEqual(testCase.sides);
      expect(bySide).toEqual(testCase.amounts);
    }
  });
});
