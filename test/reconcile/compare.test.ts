/** The comparison alone, on hand-made API postings and book entries: each kind of difference, and scoping. */
import { describe, expect, it } from 'vitest';
import type { BookEntry, BookRead } from '../../src/connector-contract/index.js';
import { compareJournal } from '../../src/flows/reconcile/journal/compare.js';
import type { ExpectedBooks, ExpectedPosting } from '../../src/flows/reconcile/journal/expected.js';
import { parseScope, ScopeError } from '../../src/flows/reconcile/scope.js';

const MARCH = parseScope({ period: '2026-03' });

function posting(
  lineId: string,
  side: 'debit' | 'credit',
  account: string,
  amount: string,
  over: Partial<ExpectedPosting> = {},
): ExpectedPosting {
  return {
    lineId,
    exportBatchId: 'exb_1',
    documentNumber: 'INV-1001',
    side,
    account,
    amount,
    date: '2026-03-05',
    valueDate: '2026-03-05',
    period: '2026-03',
    reference: '1001',
    ...over,
  };
}

/** One invoice: 100.00 expense and 17.00 VAT against 117.00 to the vendor. */
const INVOICE = [
  posting('jl_1', 'debit', '6000', '100.00'),
  posting('jl_2', 'debit', '1500', '17.00'),
  posting('jl_3', 'credit', '4000', '117.00'),
];

function expected(postings: readonly ExpectedPosting[]): ExpectedBooks {
  return {
    postings,
    exportedLines: postings.length,
    otherTargets: new Map(),
    unmapped: [],
    unreadableItems: 0,
  };
}

function entry(
  side: 'debit' | 'credit',
  account: string,
  amount: string,
  over: Partial<BookEntry> = {},
): BookEntry {
  return {
    location: `books row ${account}`,
    batchKey: 'je-1',
    sourceIds: null,
    side,
    account,
    amount,
    date: '2026-03-05',
    valueDate: '2026-03-05',
    period: null,
    reference: '1001',
    ...over,
  };
}

function books(entries: readonly BookEntry[]): BookRead {
  return {
    fields: { date: true, valueDate: true, period: false, reference: true },
    entries,
    sources: ['books'],
  };
}

const CLEAN = [
  entry('debit', '6000', '100.00'),
  entry('debit', '1500', '17.00'),
  entry('credit', '4000', '117.00'),
];

describe('compareJournal', () => {
  it('finds nothing when the books hold what the API exported, also when a target merges a document per account', () => {
    expect(compareJournal(expected(INVOICE), books(CLEAN), MARCH).differences).toEqual([]);
    const split = [
      ...INVOICE.slice(0, 2),
      posting('jl_3', 'credit', '4000', '100.00'),
      posting('jl_4', 'credit', '4000', '17.00'),
    ];
    const result = compareJournal(expected(split), books(CLEAN), MARCH);
    expect(result.differences).toEqual([]);
    expect(result.totals?.accounts.every((row) => row.matches)).toBe(true);
  });

  it('names a row deleted from the books as missing, by its document number, with its line id and export batch', () => {
    const [only] = compareJournal(
      expected(INVOICE),
      books(CLEAN.filter((e) => e.account !== '1500')),
      MARCH,
    ).differences;
    expect(only).toMatchObject({
      kind: 'missing_in_books',
      // The books keep the reference 1001; the report names the document a person looks up.
      document: 'INV-1001',
      account: '1500',
      apiIds: ['jl_2'],
      batchIds: ['exb_1'],
    });
  });

  it('names a posting held twice, an amount changed, an account changed and a date changed', () => {
    const edited = [
      entry('debit', '6000', '200.00'),
      entry('debit', '1510', '17.00'),
      entry('credit', '4000', '117.00', { date: '2026-03-06' }),
    ];
    const kinds = compareJournal(expected(INVOICE), books(edited), MARCH).differences.map((d) => [
      d.kind,
      d.account,
    ]);
    expect(kinds).toEqual([
      ['present_twice', '6000'],
      ['date_differs', '4000'],
      ['account_differs', '1500 -> 1510'],
    ]);
    const changed = compareJournal(
      expected(INVOICE),
      books([entry('debit', '6000', '99.00'), ...CLEAN.slice(1)]),
      MARCH,
    );
    expect(changed.differences).toMatchObject([
      { kind: 'amount_differs', apiValue: '100.00', booksValue: '99.00' },
    ]);
  });

  it('names an entry in the books that the API does not list as exported', () => {
    const extra = [...CLEAN, entry('debit', '6100', '5.00', { reference: '2002', location: 'books row 9' })];
    const [only] = compareJournal(expected(INVOICE), books(extra), MARCH).differences;
    expect(only).toMatchObject({ kind: 'not_exported_by_api', document: '2002', where: ['books row 9'] });
  });

  it('leaves out entries of other periods on both sides, by the field the books keep', () => {
    const april = entry('debit', '6100', '5.00', {
      reference: '2002',
      date: '2026-04-02',
      valueDate: '2026-04-02',
    });
    const result = compareJournal(
      expected([
        ...INVOICE,
        posting('jl_9', 'debit', '7000', '1.00', {
          valueDate: '2026-04-01',
          period: '2026-04',
          date: '2026-04-01',
        }),
      ]),
      books([...CLEAN, april]),
      MARCH,
    );
    expect(result.differences).toEqual([]);
  });

  it('refuses books that keep no date, value date or period', () => {
    const bare: BookRead = {
      fields: { date: false, valueDate: false, period: false, reference: true },
      entries: CLEAN,
      sources: [],
    };
    expect(() => compareJournal(expected(INVOICE), bare, MARCH)).toThrow(ScopeError);
  });
});

describe('parseScope', () => {
  it('takes a period or a range of dates, and names what is wrong with anything else', () => {
    expect(parseScope({ period: '2026-02' })).toMatchObject({
      from: '2026-02-01',
      to: '2026-02-28',
      periods: ['2026-02'],
    });
    expect(parseScope({ from: '2026-03-10', to: '2026-04-05' }).periods).toEqual([
      '2026-02',
      '2026-03',
      '2026-04',
      '2026-05',
    ]);
    expect(() => parseScope({ period: '2026-3' })).toThrow(
      '--period "2026-3" is not an accounting period YYYY-MM',
    );
    expect(() => parseScope({ from: '2026-02-30', to: '2026-03-01' })).toThrow(
      '--from "2026-02-30" is not a date',
    );
    expect(() => parseScope({ from: '2026-03-02', to: '2026-03-01' })).toThrow('is after --to');
    expect(() => parseScope({})).toThrow('give --period YYYY-MM');
  });
});
