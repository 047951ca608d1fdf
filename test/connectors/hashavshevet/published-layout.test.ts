/** The writer's files, read back by the reader written from the published PRM line table alone. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { HashavshevetWriter, hashavshevetConfigSchema } from '../../../connectors/hashavshevet/index.js';
import { entry, sampleBatch } from './fixtures.js';
import { movementTotals, readPublishedImport } from './published-reader.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hashavshevet-published-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('hashavshevet files read by the published PRM line table', () => {
  function writer(overrides: Record<string, unknown> = {}): HashavshevetWriter {
    return new HashavshevetWriter(hashavshevetConfigSchema.parse({ import_dir: dir, ...overrides }), 'books');
  }

  function read(w: HashavshevetWriter, key: string) {
    const files = w.filesFor(key);
    return readPublishedImport(files.layout, files.data);
  }

  const pair = (input: Partial<Parameters<typeof entry>[1]> = {}) => [
    entry(1, { side: 'debit', account: '60010', amount: '10.00', ...input }),
    entry(2, { side: 'credit', account: '40001', amount: '10.00', ...input }),
  ];

  it('puts every field at its published line: details at 9, accounts at 10-13, ILS amounts at 14-17', async () => {
    const writer = new HashavshevetWriter(hashavshevetConfigSchema.parse({ import_dir: dir }), 'books');
    await writer.writeJournalBatch(sampleBatch());
    const files = writer.filesFor('je-0001');
    const { movements } = readPublishedImport(files.layout, files.data);
    expect(movements.map((m) => m.details)).toEqual(['ירקות טריים סניף ת"א', 'מע"מ תשומות', 'זיכוי החזרה']);
    expect(movements[0]).toMatchObject({
      movementType: 'חש',
      reference1: '1001',
      referenceDate: '2026-03-07',
      debits: [
        { account: '60010', agorot: 100000n },
        { account: '60020', agorot: 25050n },
      ],
      credits: [{ account: 'ספק-4001', agorot: 125050n }],
    });
    expect(movements[2]).toMatchObject({ reference2: '123456789', valueDate: '2026-03-31' });
    expect(movementTotals(movements)).toEqual({ debit: 158009n, credit: 158009n });
  });

  it('fills the costing code (line 7) from the branch through costing_code_map, and the VAT number (line 29)', async () => {
    const w = writer({
      costing_code: 'branch',
      costing_code_map: { br_tlv: 'TLV01' },
      vat_number: 'vendor_tax_id',
    });
    await w.writeJournalBatch({
      batchKey: 'je-codes',
      entries: pair({ branchId: 'br_tlv', vendorTaxId: '514000012' }),
    });
    const { layout, movements } = read(w, 'je-codes');
    expect(layout.positions.has(7)).toBe(true);
    expect(layout.positions.has(29)).toBe(true);
    expect(movements[0]).toMatchObject({ costingCode: 'TLV01', vatNumber: '514000012' });
    expect(movements[0]?.raw.get(29)).toBe('514000012');
  });

  it('takes the costing code from the purchase type as it is without a map, blank when a line has none', async () => {
    const w = writer({ costing_code: 'purchase_type' });
    await w.writeJournalBatch({
      batchKey: 'je-purchase',
      entries: [
        ...pair({ purchaseType: 'FOOD', reference: '1' }),
        ...pair({ purchaseType: null, reference: '2' }).map((e, i) => ({ ...e, lineNumber: 3 + i })),
      ],
    });
    const { movements } = read(w, 'je-purchase');
    expect(movements.map((m) => m.costingCode)).toEqual(['FOOD', '']);
  });

  it.each([
    [
      'movement type',
      { movementType: 'חשבון' },
      /movement type code \(PRM line 2\) "חשבון" is 5 characters; the importer reads at most 3/,
    ],
    [
      'details',
      { description: 'x'.repeat(51) },
      /details \(PRM line 9\) .* is 51 characters; the importer reads at most 50/,
    ],
    [
      'account',
      { account: '1234567890123456' },
      /debit account 1 \(PRM line 10\) "1234567890123456" is 16 characters/,
    ],
    [
      'VAT number',
      { vendorTaxId: '5140000123' },
      /VAT registration number \(PRM line 29\) "5140000123" is 10 characters/,
    ],
    [
      'VAT number letters',
      { vendorTaxId: 'IL514' },
      /VAT registration number \(PRM line 29\) "IL514" is not digits/,
    ],
    [
      'costing code',
      { purchaseType: 'VEGETABLES' },
      /costing code \(PRM line 7\) "VEGETABLES" is 10 characters; the importer reads at most 8/,
    ],
  ])(
    'refuses a %s wider than its published field, naming it, and writes nothing',
    async (_, input, reason) => {
      const w = writer({ costing_code: 'purchase_type', vat_number: 'vendor_tax_id' });
      const entries = pair(input);
      expect(await w.precheckEntries(entries)).toMatch(reason);
      await expect(w.writeJournalBatch({ batchKey: 'je-wide', entries })).rejects.toThrow(reason);
      expect(await w.hasBatch('je-wide')).toBe(false);
    },
  );

  it('rejects a costing_code_map without costing_code, and a code longer than the field, naming the key', () => {
    expect(() =>
      hashavshevetConfigSchema.parse({ import_dir: dir, costing_code_map: { br_tlv: '10' } }),
    ).toThrow(/costing_code_map is set but costing_code is none/);
    const tooLong = hashavshevetConfigSchema.safeParse({
      import_dir: dir,
      costing_code: 'branch',
      costing_code_map: { br_tlv: 'TELAVIV01' },
    });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0]).toMatchObject({
      path: ['costing_code_map', 'br_tlv'],
      message: 'a costing code holds at most 8 characters (PRM line 7)',
    });
  });

  it('refuses a branch missing from costing_code_map, naming the map', async () => {
    const w = writer({ costing_code: 'branch', costing_code_map: { br_tlv: '10' } });
    expect(await w.precheckEntries(pair({ branchId: 'br_hfa' }))).toMatch(
      /branch "br_hfa" has no entry in the connector's costing_code_map/,
    );
  });

  it('cuts long details only when details_overflow: truncate asks for it', async () => {
    const w = writer({ details_overflow: 'truncate' });
    await w.writeJournalBatch({ batchKey: 'je-cut', entries: pair({ description: 'א'.repeat(60) }) });
    expect(read(w, 'je-cut').movements[0]?.details).toBe('א'.repeat(50));
  });

  it('keeps logical order by default and writes visual order when text_direction is visual', async () => {
    const description = 'חשבונית 1001 (ספק)';
    const logical = writer();
    await logical.writeJournalBatch({ batchKey: 'je-logical', entries: pair({ description }) });
    expect(read(logical, 'je-logical').movements[0]?.details).toBe(description);

    const visual = writer({ text_direction: 'visual' });
    await visual.writeJournalBatch({
      batchKey: 'je-visual',
      entries: pair({ description, account: 'ספק-4001', movementType: 'חש' }),
    });
    const [movement] = read(visual, 'je-visual').movements;
    // As displayed from left to right: the Hebrew reversed, the number kept, the brackets mirrored.
    expect(movement?.details).toBe('(קפס) 1001 תינובשח');
    expect(movement?.debits[0]?.account).toBe('4001-קפס');
    expect(movement?.movementType).toBe('שח');
    expect(() => hashavshevetConfigSchema.parse({ import_dir: dir, text_direction: 'rtl' })).toThrow();
  });

  it('accepts the configuration docs/accounting.md shows, and its files read back', async () => {
    const docs = await readFile(new URL('../../../docs/accounting.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('## Target: Hashavshevet'));
    const yamlBlock = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const parsed = parseYaml(yamlBlock) as { connectors: { books: Record<string, unknown> } };
    const { type, ...books } = parsed.connectors.books;
    expect(type).toBe('hashavshevet');
    const config = hashavshevetConfigSchema.parse({ ...books, import_dir: dir });
    expect(config).toMatchObject({ costing_code: 'branch', vat_number: 'none', text_direction: 'logical' });
    const w = new HashavshevetWriter(config, 'books');
    await w.writeJournalBatch(sampleBatch());
    expect(read(w, 'je-0001').movements).toHaveLength(3);
  });
});
