import { describe, expect, it } from 'vitest';
import {
  JOURNAL_ENTRY_CONTENT_KEYS,
  sameEntryContent,
  type JournalEntry,
} from '../../src/connector-contract/journal.js';

const entry: JournalEntry = {
  lineNumber: 1,
  side: 'debit',
  account: '5120',
  counterAccount: '40001',
  amount: '100.00',
  currency: 'ILS',
  date: '2026-03-31',
  valueDate: '2026-03-31',
  period: '2026-03',
  reference: '7',
  reference2: null,
  branchCode: 'TLV',
  movementType: null,
  description: 'veg',
  branchId: 'br_tlv',
  purchaseType: 'FC',
  vendorTaxId: '514713288',
  sourceIds: ['jl_1', 'jl_2'],
};

describe('sameEntryContent', () => {
  it('lists every key of a journal entry but its line number', () => {
    expect([...JOURNAL_ENTRY_CONTENT_KEYS].sort()).toEqual(
      Object.keys(entry)
        .filter((key) => key !== 'lineNumber')
        .sort(),
    );
  });

  it('tells entries apart by any one of their fields, and not by their line numbers', () => {
    expect(sameEntryContent(entry, { ...entry, lineNumber: 9, sourceIds: ['jl_1', 'jl_2'] })).toBe(true);
    for (const key of JOURNAL_ENTRY_CONTENT_KEYS) {
      const other = key === 'sourceIds' ? ['jl_1', 'jl_3'] : key === 'side' ? 'credit' : `another ${key}`;
      expect(sameEntryContent(entry, { ...entry, [key]: other }), key).toBe(false);
    }
    expect(sameEntryContent(entry, { ...entry, sourceIds: ['jl_1'] })).toBe(false);
  });

  it('takes an absent optional field for null', () => {
    const { branchId: _branchId, ...withoutBranch } = entry;
    expect(sameEntryContent({ ...withoutBranch }, { ...entry, branchId: null })).toBe(true);
    expect(sameEntryContent({ ...withoutBranch }, entry)).toBe(false);
  });
});
