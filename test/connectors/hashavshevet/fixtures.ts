import type { JournalBatch, JournalEntry } from '../../../src/connector-contract/journal.js';

type EntryInput = Partial<JournalEntry> & Pick<JournalEntry, 'side' | 'account' | 'amount'>;

export function entry(lineNumber: number, input: EntryInput): JournalEntry {
  return {
    lineNumber,
    counterAccount: null,
    currency: 'ILS',
    date: '2026-03-07',
    valueDate: '2026-03-07',
    period: '2026-03',
    reference: '1001',
    reference2: null,
    branchCode: null,
    movementType: 'חש',
    description: 'חשבונית ירקות',
    sourceIds: [`jl_${lineNumber}`],
    ...input,
  };
}

/** An invoice (two expense accounts, VAT, vendor) and a credit note (reversed), in Hebrew. */
export function sampleBatch(batchKey = 'je-0001'): JournalBatch {
  return {
    batchKey,
    entries: [
      entry(1, { side: 'debit', account: '60010', amount: '1000.00', description: 'ירקות טריים סניף ת"א' }),
      entry(2, { side: 'debit', account: '60020', amount: '250.50' }),
      entry(3, { side: 'debit', account: '18000', amount: '212.59', description: 'מע"מ תשומות' }),
      entry(4, { side: 'credit', account: 'ספק-4001', amount: '1463.09', description: 'גליל פרש' }),
      entry(5, {
        side: 'debit',
        account: 'ספק-4001',
        amount: '117.00',
        reference: '2002',
        reference2: '123456789',
        movementType: 'זכ',
        date: '2026-03-08',
        valueDate: '2026-03-31',
        description: 'זיכוי החזרה',
      }),
      entry(6, { side: 'credit', account: '60010', amount: '100.00', reference: '2002', movementType: 'זכ' }),
      entry(7, { side: 'credit', account: '18000', amount: '17.00', reference: '2002', movementType: 'זכ' }),
    ],
  };
}
