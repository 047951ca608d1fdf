/** The writer's files, read back by the reader written from the published PRM line table alone. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { HashavshevetWriter, hashavshevetConfigSchema } from '../../../connectors/hashavshevet/index.js';
import { entry, sampleBatch } from './fixtures.js';
import { PublishedFormatError, movementTotals, readPublishedImport } from './published-reader.js';

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

describe('a written file whose field sits in another column is refused by the published reader', () => {
  async function written(): Promise<{ prm: string; data: string; lines: string[]; records: Buffer[] }> {
    const w = new HashavshevetWriter(hashavshevetConfigSchema.parse({ import_dir: dir }), 'books');
    await w.writeJournalBatch(sampleBatch());
    const files = w.filesFor('je-0001');
    const lines = (await readFile(files.layout, 'latin1')).split('\r\n').slice(0, -1);
    const doc = await readFile(files.data);
    const recordLength = Number(lines[0]);
    const records = Array.from({ length: doc.length / (recordLength + 2) }, (_, i) =>
      Buffer.from(doc.subarray(i * (recordLength + 2), i * (recordLength + 2) + recordLength)),
    );
    return { prm: files.layout, data: files.data, lines, records };
  }

  const swapLines = (lines: string[], a: number, b: number) => {
    const swapped = [...lines];
    [swapped[a - 1], swapped[b - 1]] = [lines[b - 1] ?? '', lines[a - 1] ?? ''];
    return swapped;
  };
  const saveLines = (file: string, lines: readonly string[]) =>
    writeFile(file, `${lines.join('\r\n')}\r\n`, 'latin1');
  const saveRecords = (file: string, records: readonly Buffer[]) =>
    writeFile(file, Buffer.concat(records.flatMap((r) => [r, Buffer.from('\r\n')])));
  const start = (lines: readonly string[], line: number) => Number((lines[line - 1] ?? '').split(' ')[0]) - 1;

  function refusal(files: { prm: string; data: string }): string {
    try {
      readPublishedImport(files.prm, files.data);
    } catch (error) {
      expect(error).toBeInstanceOf(PublishedFormatError);
      return (error as Error).message;
    }
    throw new Error('the published reader read the corrupted file without a complaint');
  }

  it('reads the file as written, so each refusal below comes from the one change', async () => {
    const files = await written();
    expect(readPublishedImport(files.prm, files.data).movements).toHaveLength(3);
  });

  it('refuses details placed at PRM line 7, where the importer reads the costing code', async () => {
    const files = await written();
    await saveLines(files.prm, swapLines(files.lines, 7, 9));
    expect(refusal(files)).toMatch(/PRM line 7 is costing code \(at most 8 characters\)/);
  });

  it("refuses debit and credit amounts written at each other's lines: the movement no longer balances", async () => {
    const files = await written();
    await saveLines(files.prm, swapLines(files.lines, 14, 16));
    expect(refusal(files)).toMatch(
      /DOC record 1 does not balance: debit 150100 agorot, credit 100000 agorot/,
    );
  });

  it('refuses an amount moved one column to the left', async () => {
    const files = await written();
    const [first, ...rest] = files.records;
    const at = start(files.lines, 14);
    const shifted = Buffer.from(first ?? []);
    shifted.copy(shifted, at, at + 1, at + 12);
    shifted[at + 11] = 0x20;
    await saveRecords(files.data, [shifted, ...rest]);
    expect(refusal(files)).toMatch(/DOC record 1 PRM line 14 \(debit amount 1 in ILS\) .* not a 9.2 amount/);
  });

  it('refuses one changed byte: a letter in a reference, a digit in an amount', async () => {
    const files = await written();
    const letter = files.records.map((r) => Buffer.from(r));
    (letter[1] ?? Buffer.alloc(0))[start(files.lines, 3)] = 0x41;
    await saveRecords(files.data, letter);
    expect(refusal(files)).toMatch(/DOC record 2 PRM line 3 \(reference 1\) "A {4}1001" is not digits/);

    const digit = files.records.map((r) => Buffer.from(r));
    const amountEnd = start(files.lines, 16) + 11;
    const record = digit[2] ?? Buffer.alloc(0);
    record[amountEnd] = record[amountEnd] === 0x30 ? 0x31 : 0x30;
    await saveRecords(files.data, digit);
    expect(refusal(files)).toMatch(/DOC record 3 does not balance/);
  });

  it('reads accounts swapped between debit and credit lines by their published meaning', async () => {
    const files = await written();
    await saveLines(files.prm, swapLines(files.lines, 10, 12));
    const { movements } = readPublishedImport(files.prm, files.data);
    expect(movements[0]?.debits[0]?.account).toBe('ספק-4001');
    expect(movements[0]?.credits[0]?.account).toBe('60010');
  });
});
