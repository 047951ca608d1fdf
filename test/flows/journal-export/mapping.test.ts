import { describe, expect, it } from 'vitest';
import type { JournalLine } from '../../../src/contract/index.js';
import { journalExportOptionsSchema } from '../../../src/flows/journal-export/index.js';
import {
  GroupMapper,
  groupByDocument,
  validateTables,
} from '../../../src/flows/shared/journal-mapping/mapping.js';
import {
  batchKeyFor,
  buildPlan,
  BatchPacker,
  plannedDocument,
  splitByDocument,
} from '../../../src/flows/journal-export/plans.js';

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
    vendor_tax_id: null,
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

const options = (input: object = {}) => journalExportOptionsSchema.parse(input);

describe('journal-export mapping', () => {
  it('checks the tables the options name, naming the option and the missing table', () => {
    const named = options({ mappings: { accounts: 'gl', branches: 'branch_codes' } });
    expect(() => validateTables(named, { gl: {}, branch_codes: {} })).not.toThrow();
    expect(() => validateTables(named, { branch_codes: {} })).toThrow(
      'options.mappings.accounts names the mapping table "gl", which is not under mappings:',
    );
    expect(() => validateTables(named, { gl: {} })).toThrow(
      'options.mappings.branches names the mapping table "branch_codes", which is not under mappings:',
    );
    expect(() => validateTables(options({ description_template: '{nope}' }), {})).toThrow(/nope/);
  });

  it('counts VAT as a debit, and as a credit on credit notes', () => {
    const mapper = new GroupMapper(options(), {});
    const invoice = groupByDocument([
      line('a', { side: 'debit', amount: '100.00' }),
      line('b', { side: 'vat', account: '1510', amount: '18.00' }),
      line('c', { side: 'credit', account: '40001', counter_account: null, amount: '118.00' }),
    ]);
    const mapped = mapper.map(invoice[0] ?? { documentId: '', lines: [] });
    expect(mapped.ok).toBe(true);
    if (mapped.ok)
      expect(mapped.entries.map((e) => [e.side, e.account, e.amount])).toEqual([
        ['debit', '5120', '100.00'],
        ['debit', '1510', '18.00'],
        ['credit', '40001', '118.00'],
      ]);
    const credit = groupByDocument([
      line('d', { document_id: 'cn', document_type: 'credit_note', side: 'credit', amount: '50.00' }),
      line('e', {
        document_id: 'cn',
        document_type: 'credit_note',
        side: 'vat',
        account: '1510',
        amount: '9.00',
      }),
      line('f', {
        document_id: 'cn',
        document_type: 'credit_note',
        side: 'debit',
        account: '40001',
        amount: '59.00',
      }),
    ]);
    const reversed = mapper.map(credit[0] ?? { documentId: '', lines: [] });
    expect(reversed.ok).toBe(true);
    if (reversed.ok) expect(reversed.entries.find((e) => e.account === '1510')?.side).toBe('credit');
  });

  it('reports the exact difference of an unbalanced document before looking at mappings', () => {
    const mapper = new GroupMapper(options({ mappings: { accounts: 'gl' } }), { gl: {} });
    const [group] = groupByDocument([
      line('a', { amount: '100.00' }),
      line('b', { side: 'credit', amount: '99.99' }),
    ]);
    const mapped = mapper.map(group ?? { documentId: '', lines: [] });
    expect(mapped).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/debit and VAT 100\.00, credit 99\.99 \(difference 0\.01\)/),
    });
  });

  it('maps accounts, branches, movement types, value dates and the description template', () => {
    const mapper = new GroupMapper(
      options({
        description_template: '{document_type} {document_number} / {branch_code}',
        value_date: 'doc_date_in_period',
        mappings: { accounts: 'gl', branches: 'br', movement_types: 'mt' },
      }),
      { gl: { '5120': 'G5120', '40001': 'G40001' }, br: { br_tlv: '10' }, mt: { '*': 'HK' } },
    );
    const [group] = groupByDocument([
      line('a', {}),
      line('b', { side: 'credit', account: '40001', counter_account: null }),
    ]);
    const mapped = mapper.map(group ?? { documentId: '', lines: [] });
    if (!mapped.ok) throw new Error(mapped.reason);
    expect(mapped.entries[0]).toMatchObject({
      account: 'G5120',
      counterAccount: 'G40001',
      branchCode: '10',
      movementType: 'HK',
      description: 'invoice INV-7 / 10',
      date: '2026-03-31',
      valueDate: '2026-04-01',
      period: '2026-04',
    });
    expect(() => new GroupMapper(options({ description_template: '{docnum}' }), {})).toThrow(
      /unknown field.*\{docnum\}/,
    );
    expect(() => new GroupMapper(options({ mappings: { accounts: 'nope' } }), {})).toThrow(/"nope"/);
  });

  it('derives the batch key from the sorted line ids, packs without splitting documents, and splits by document', () => {
    expect(batchKeyFor(['b', 'a'])).toBe(batchKeyFor(['a', 'b']));
    expect(batchKeyFor(['a', 'b'])).not.toBe(batchKeyFor(['a', 'b', 'c']));
    const mapper = new GroupMapper(options(), {});
    const groups = groupByDocument([
      line('a1', { document_id: 'A' }),
      line('a2', { document_id: 'A', side: 'credit' }),
      line('b1', { document_id: 'B' }),
      line('b2', { document_id: 'B', side: 'credit' }),
      line('c1', { document_id: 'C' }),
      line('c2', { document_id: 'C', side: 'credit' }),
    ]).map((g) => mapper.map(g));
    const ready = groups.filter((g): g is Extract<typeof g, { ok: true }> => g.ok);
    const packer = new BatchPacker<(typeof ready)[number]>(5, (g) => g.group.lines.length);
    const packed = [...ready.map((g) => packer.add(g)), packer.take()].filter((b) => b !== null);
    expect(packed.map((b) => b.map((g) => g.group.documentId))).toEqual([['A', 'B'], ['C']]);
    const plan = buildPlan(
      ready.map((g) => plannedDocument(g)),
      'books',
      1,
    );
    expect(plan.batchKey).toBe(batchKeyFor(['c2', 'a1', 'b1', 'a2', 'b2', 'c1']));
    expect(plan.batch.entries.map((e) => e.lineNumber)).toEqual([1, 2, 3, 4, 5, 6]);
    const parts = splitByDocument(plan, 2);
    expect(parts.map((p) => [p.documentIds, p.lineIds, p.batch.entries.length])).toEqual([
      [['A'], ['a1', 'a2'], 2],
      [['B'], ['b1', 'b2'], 2],
      [['C'], ['c1', 'c2'], 2],
    ]);
    expect(parts[1]?.batchKey).toBe(batchKeyFor(['b1', 'b2']));
  });
});
