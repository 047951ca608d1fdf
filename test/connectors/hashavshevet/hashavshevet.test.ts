import { mkdtemp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../src/connector-contract/index.js';
import { PluginRegistry } from '../../../src/plugin/index.js';
import {
  HashavshevetWriter,
  hashavshevetConfigSchema,
  hashavshevetConnectorDefinition,
} from '../../../connectors/hashavshevet/index.js';
import { entry, sampleBatch } from './fixtures.js';
import { readPublishedImport, type PublishedMovement } from './published-reader.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hashavshevet-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function writer(overrides: Record<string, unknown> = {}): HashavshevetWriter {
  return new HashavshevetWriter(hashavshevetConfigSchema.parse({ import_dir: dir, ...overrides }), 'books');
}

/** A field's text as decoded (untrimmed), by its published PRM line number. */
function field(record: PublishedMovement | undefined, line: number): string {
  const value = record?.raw.get(line);
  if (value === undefined) throw new Error(`PRM line ${line} is not filled`);
  return value;
}

function sides(record: PublishedMovement): { debit: bigint; credit: bigint } {
  const sum = (slots: PublishedMovement['debits']) => slots.reduce((total, slot) => total + slot.agorot, 0n);
  return { debit: sum(record.debits), credit: sum(record.credits) };
}

async function readBack(w: HashavshevetWriter, key: string) {
  const files = w.filesFor(key);
  const { layout, movements } = readPublishedImport(files.layout, files.data);
  return { layout, records: movements, bytes: await readFile(files.data) };
}

describe('hashavshevet writer, read back by the reader written from the published PRM table', () => {
  it('writes every field at the PRM positions, balanced per record and per batch, windows-1255 with CRLF', async () => {
    const w = writer();
    const result = await w.writeJournalBatch(sampleBatch());
    expect(result).toMatchObject({ status: 'written', entryCount: 7 });
    const { layout, records, bytes } = await readBack(w, 'je-0001');

    // The published line numbers: 2 movement type (3), 3/4 references (9), 5/6 dates (8 as DDMMYYYY), 9 details
    // (50), 10-13 accounts (15), 14-17 ILS amounts (9.2, 12 bytes); 7 (costing code), 8 (currency), 18-35 unused.
    const width = (line: number) => {
      const p = layout.positions.get(line);
      return p ? p.end - p.start + 1 : 0;
    };
    expect([2, 3, 4, 5, 6, 7, 8, 9].map(width)).toEqual([3, 9, 9, 8, 8, 0, 0, 50]);
    expect([10, 11, 12, 13, 14, 15, 16, 17].map(width)).toEqual([15, 15, 15, 15, 12, 12, 12, 12]);
    expect([...layout.positions.keys()].filter((line) => line > 17)).toEqual([]);
    expect(layout.recordLength).toBe(3 + 9 + 9 + 8 + 8 + 50 + 4 * 15 + 4 * 12);

    expect(bytes.length).toBe(records.length * (layout.recordLength + 2));
    expect(records).toHaveLength(3);
    const [invoice, vat, creditNote] = records;

    // invoice: two expense accounts and VAT against the vendor; the two debit slots are full, so VAT needs a second movement
    expect(field(invoice, 2)).toBe('חש ');
    expect(field(invoice, 3)).toBe('     1001');
    expect(field(invoice, 4)).toBe('         ');
    expect(field(invoice, 5)).toBe('07032026');
    expect(field(invoice, 6)).toBe('07032026');
    expect(field(invoice, 9)).toBe('ירקות טריים סניף ת"א'.padEnd(50));
    expect(field(invoice, 10)).toBe('60010'.padEnd(15));
    expect(field(invoice, 11)).toBe('60020'.padEnd(15));
    expect(field(invoice, 12)).toBe('ספק-4001'.padEnd(15));
    expect(field(invoice, 13)).toBe(' '.repeat(15));
    expect(field(invoice, 14)).toBe('     1000.00');
    expect(field(invoice, 15)).toBe('      250.50');
    expect(field(invoice, 16)).toBe('     1250.50');
    expect(field(invoice, 17)).toBe(' '.repeat(12));
    // VAT: the invoice's debit slots are full, so it opens a second movement against the same vendor
    expect(field(vat, 3)).toBe('     1001');
    expect(field(vat, 9)).toBe('מע"מ תשומות'.padEnd(50));
    expect(field(vat, 10).trim()).toBe('18000');
    expect(field(vat, 14).trim()).toBe('212.59');
    expect(field(vat, 12).trim()).toBe('ספק-4001');
    expect(field(vat, 16).trim()).toBe('212.59');
    // credit note: vendor debited, expense and VAT credited, in one movement with both credit slots
    expect(field(creditNote, 2)).toBe('זכ ');
    expect(field(creditNote, 3)).toBe('     2002');
    expect(field(creditNote, 4)).toBe('123456789');
    expect(field(creditNote, 5)).toBe('08032026');
    expect(field(creditNote, 6)).toBe('31032026');
    expect(field(creditNote, 10).trim()).toBe('ספק-4001');
    expect(field(creditNote, 14).trim()).toBe('117.00');
    expect(field(creditNote, 12).trim()).toBe('60010');
    expect(field(creditNote, 16).trim()).toBe('100.00');
    expect(field(creditNote, 13).trim()).toBe('18000');
    expect(field(creditNote, 17).trim()).toBe('17.00');
    for (const record of records) {
      const { debit, credit } = sides(record);
      expect(debit).toBe(credit);
      // Hebrew letters are single bytes 0xE0-0xFA; nothing from the 0x80-0x9F range
      expect([...record.bytes].filter((b) => b >= 0x80 && b <= 0x9f)).toEqual([]);
    }
  });

  it('packs each balanced document separately and the batch totals match the entries', async () => {
    const w = writer();
    const batch = sampleBatch();
    await w.writeJournalBatch(batch);
    const { records: all } = await readBack(w, 'je-0001');
    const totalDebit = all.reduce((sum, r) => sum + sides(r).debit, 0n);
    const expected = batch.entries
      .filter((e) => e.side === 'debit')
      .reduce((sum, e) => sum + BigInt(e.amount.replace('.', '')), 0n);
    expect(totalDebit).toBe(expected);
    const byReference = new Map<string, bigint>();
    for (const r of all) {
      const ref = field(r, 3).trim();
      byReference.set(ref, (byReference.get(ref) ?? 0n) + sides(r).debit - sides(r).credit);
    }
    expect([...byReference.values()].every((v) => v === 0n)).toBe(true);
  });
});

describe('hashavshevet date formats', () => {
  it.each([
    ['DDMMYY', '070326'],
    ['DD/MM/YY', '07/03/26'],
    ['DD/MM/YYYY', '07/03/2026'],
  ])('lays out %s dates at the width the PRM file gives', async (format, expected) => {
    const w = writer({ date_format: format });
    await w.writeJournalBatch(sampleBatch());
    const { layout, records } = await readBack(w, 'je-0001');
    const position = layout.positions.get(5);
    expect(position && position.end - position.start + 1).toBe(expected.length);
    expect(field(records[0], 5)).toBe(expected);
    expect(layout.recordLength).toBe(3 + 9 + 9 + 2 * expected.length + 50 + 4 * 15 + 4 * 12);
  });
});

describe('hashavshevet encoding', () => {
  it('round-trips Hebrew through windows-1255 one byte per letter', async () => {
    const w = writer();
    const text = 'אבגדהוזחטיכלמנסעפצקרשת ךםןףץ';
    await w.writeJournalBatch({
      batchKey: 'je-hebrew',
      entries: [
        entry(1, { side: 'debit', account: 'חשבון', amount: '1.00', description: text }),
        entry(2, { side: 'credit', account: 'ספק', amount: '1.00' }),
      ],
    });
    const { records } = await readBack(w, 'je-hebrew');
    expect(field(records[0], 9).trimEnd()).toBe(text);
    const { layout } = await readBack(w, 'je-hebrew');
    const details = layout.positions.get(9);
    const bytes = records[0]?.bytes.subarray(
      (details?.start ?? 1) - 1,
      (details?.start ?? 1) - 1 + text.length,
    );
    expect([...(bytes ?? [])].filter((b) => b !== 0x20).every((b) => b >= 0xe0 && b <= 0xfa)).toBe(true);
  });

  it.each([
    ['shekel sign', '₪'],
    ['gershayim', '\u05F4'],
    ['geresh', '\u05F3'],
    ['niqqud (qamats)', 'ש\u05B8'],
    ['euro sign', '€'],
  ])('refuses the %s, which windows-1255 and ISO-8859-8 do not share, and writes nothing', async (_, bad) => {
    const w = writer();
    const batch = {
      batchKey: 'je-bad',
      entries: [
        entry(1, { side: 'debit' as const, account: '1', amount: '5.00', description: `מחיר 5${bad}` }),
        entry(2, { side: 'credit' as const, account: '2', amount: '5.00' }),
      ],
    };
    const error = await w.writeJournalBatch(batch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).code).toBe('connector_input_invalid');
    expect((error as Error).message).toMatch(/windows-1255 and ISO-8859-8/);
    expect((error as Error).message).toMatch(/char_map/);
    expect(await w.precheckEntries(batch.entries)).toMatch(/not one that windows-1255/);
    expect(await w.hasBatch('je-bad')).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it('maps refused characters through char_map', async () => {
    const w = writer({ char_map: { '₪': 'ש"ח', '\u05F4': '"', '\u05B8': '' } });
    await w.writeJournalBatch({
      batchKey: 'je-map',
      entries: [
        entry(1, { side: 'debit', account: '1', amount: '5.00', description: 'צה\u05F4ל 5₪ שָ' }),
        entry(2, { side: 'credit', account: '2', amount: '5.00' }),
      ],
    });
    const { records } = await readBack(w, 'je-map');
    expect(field(records[0], 9).trimEnd()).toBe('צה"ל 5ש"ח ש');
  });

  it('applies a char_map entry for a plain ASCII character to ASCII-only text too', async () => {
    const w = writer({ char_map: { $: 'USD ' } });
    await w.writeJournalBatch({
      batchKey: 'je-ascii-map',
      entries: [
        entry(1, { side: 'debit', account: '1', amount: '5.00', description: 'paid $5 cash' }),
        entry(2, { side: 'credit', account: '2', amount: '5.00', description: 'plain text' }),
      ],
    });
    const { records } = await readBack(w, 'je-ascii-map');
    expect(field(records[0], 9).trimEnd()).toBe('paid USD 5 cash');
  });

  it('refuses a control character in otherwise plain ASCII text', async () => {
    const batch = {
      batchKey: 'je-control',
      entries: [
        entry(1, { side: 'debit' as const, account: '1', amount: '5.00', description: 'tab\there' }),
        entry(2, { side: 'credit' as const, account: '2', amount: '5.00' }),
      ],
    };
    expect(await writer().precheckEntries(batch.entries)).toMatch(/U\+0009/);
  });
});

describe('hashavshevet references', () => {
  const longBatch = (key: string, reference: string) => ({
    batchKey: key,
    entries: [
      entry(1, { side: 'debit' as const, account: '1', amount: '9.00', reference }),
      entry(2, { side: 'credit' as const, account: '2', amount: '9.00', reference }),
    ],
  });

  it('refuses a document number longer than nine digits without a rule, naming the setting', async () => {
    const error = await writer()
      .writeJournalBatch(longBatch('je-long', 'INV-2026-0001234'))
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/INV-2026-0001234.*long_references/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps the last nine digits with last_digits', async () => {
    const w = writer({ long_references: 'last_digits' });
    await w.writeJournalBatch(longBatch('je-last', 'INV-2026-0001234'));
    const { records } = await readBack(w, 'je-last');
    expect(field(records[0], 3)).toBe('260001234');
  });

  it('numbers references from a persistent sequence, the same number for the same document', async () => {
    const w = writer({ long_references: 'sequence', sequence_start: 500 });
    await w.writeJournalBatch(longBatch('je-s1', 'INV-A-00000000001'));
    await w.writeJournalBatch(longBatch('je-s2', 'INV-A-00000000002'));
    const again = writer({ long_references: 'sequence', sequence_start: 500 });
    await again.writeJournalBatch(longBatch('je-s3', 'INV-A-00000000001'));
    const refs = await Promise.all(
      ['je-s1', 'je-s2', 'je-s3'].map(async (key) => field((await readBack(w, key)).records[0], 3).trim()),
    );
    expect(refs).toEqual(['500', '501', '500']);
  });

  it('sees numbers another writer of the same folder gave since it last read the sequence', async () => {
    // Two processes on one books folder over time (an office's company moved to another process): each keeps the
    // sequence file as it last read it, and must read it again once the other has written it, or two documents
    // would share a number.
    const first = writer({ long_references: 'sequence', sequence_start: 500 });
    const second = writer({ long_references: 'sequence', sequence_start: 500 });
    await first.writeJournalBatch(longBatch('je-t1', 'INV-B-00000000001'));
    expect(await first.precheckEntries(longBatch('je-t0', 'INV-B-00000000001').entries)).toBeNull();
    await second.writeJournalBatch(longBatch('je-t2', 'INV-B-00000000002'));
    await first.writeJournalBatch(longBatch('je-t3', 'INV-B-00000000003'));
    await first.writeJournalBatch(longBatch('je-t4', 'INV-B-00000000002'));
    const refs = await Promise.all(
      ['je-t1', 'je-t2', 'je-t3', 'je-t4'].map(async (key) =>
        field((await readBack(first, key)).records[0], 3).trim(),
      ),
    );
    expect(refs).toEqual(['500', '501', '502', '501']);
  });
});

describe('hashavshevet batches and files', () => {
  it('tells a written batch by its file, also after the accountant moves it to done/', async () => {
    const w = writer();
    expect(await w.hasBatch('je-0001')).toBe(false);
    await w.writeJournalBatch(sampleBatch());
    expect(await w.hasBatch('je-0001')).toBe(true);
    const files = w.filesFor('je-0001');
    const before = await readFile(files.data);
    await mkdir(join(dir, 'done'));
    await rename(files.data, join(dir, 'done', 'MOVEIN-je-0001.DOC'));
    expect(await w.hasBatch('je-0001')).toBe(true);
    const second = await w.writeJournalBatch(sampleBatch());
    expect(second.status).toBe('already_written');
    expect(await readFile(join(dir, 'done', 'MOVEIN-je-0001.DOC'))).toEqual(before);
    expect((await readdir(dir)).filter((n) => n.endsWith('.DOC'))).toEqual([]);
  });

  it('ignores and sweeps the temporary file of a write interrupted before its rename', async () => {
    const w = writer();
    await writeFile(join(dir, '.tmp-MOVEIN-je-0001.DOC-abc123'), 'partial');
    expect(await w.hasBatch('je-0001')).toBe(false);
    await w.writeJournalBatch(sampleBatch());
    expect((await readdir(dir)).sort()).toEqual([
      'MOVEIN-je-0001.DOC',
      'MOVEIN-je-0001.PRM',
      'supply-sync-references.json',
    ]);
  });

  it('refuses an unbalanced batch and one with an amount over 9.2', async () => {
    const unbalanced = await writer()
      .writeJournalBatch({
        batchKey: 'je-x',
        entries: [entry(1, { side: 'debit', account: '1', amount: '5.00' })],
      })
      .catch((e: unknown) => e);
    expect((unbalanced as Error).message).toMatch(/do not balance/);
    const huge = await writer()
      .writeJournalBatch({
        batchKey: 'je-y',
        entries: [
          entry(1, { side: 'debit', account: '1', amount: '1000000000.00' }),
          entry(2, { side: 'credit', account: '2', amount: '1000000000.00' }),
        ],
      })
      .catch((e: unknown) => e);
    expect((huge as Error).message).toMatch(/9\.2/);
  });

  it('registers with the plugin registry, which also holds its config schema', async () => {
    const registry = new PluginRegistry([hashavshevetConnectorDefinition]);
    const connector = await registry.createConnector(
      'hashavshevet',
      { import_dir: 'imports' },
      { name: 'books', baseDir: dir },
    );
    expect(connector.capabilities.accountingWriter).toBeInstanceOf(HashavshevetWriter);
    expect(await connector.check()).toEqual([expect.objectContaining({ status: 'ok' })]);
    expect(registry.connector('hashavshevet')?.configSchema).toBe(hashavshevetConfigSchema);
    expect(() => hashavshevetConfigSchema.parse({ import_dir: dir, date_fromat: 'DDMMYY' })).toThrow(
      /date_fromat/,
    );
    expect(() => hashavshevetConfigSchema.parse({ import_dir: dir, long_references: 'cut' })).toThrow();
  });
});

describe('hashavshevet writer, records prepared by the precheck', () => {
  /** The sample batch's two documents, each numbered as a batch of its own (as the flow checks them). */
  function documents() {
    const entries = sampleBatch().entries;
    const own = (from: number, to: number) =>
      entries.slice(from, to).map((e, i) => ({ ...e, lineNumber: i + 1, sourceIds: [...e.sourceIds] }));
    return [own(0, 4), own(4, 7)];
  }

  async function prepare(w: HashavshevetWriter, entries: ReturnType<typeof documents>[number]) {
    const checked = await w.prepareEntries(entries);
    if (checked.refusal !== null) throw new Error(checked.refusal);
    if (checked.prepared === null) throw new Error('nothing prepared');
    return checked.prepared;
  }

  it('writes the same bytes from the prepared records as from the entries', async () => {
    const plain = writer();
    await plain.writeJournalBatch(sampleBatch('je-plain'));
    const w = writer();
    const prepared = await Promise.all(documents().map((entries) => prepare(w, entries)));
    expect(prepared.map((p) => p.entryCount)).toEqual([4, 3]);
    await w.writeJournalBatch(sampleBatch('je-prepared'), prepared);
    expect(await readFile(w.filesFor('je-prepared').data)).toEqual(
      await readFile(plain.filesFor('je-plain').data),
    );
  });

  it('writes the prepared records themselves, not a second rendering', async () => {
    const w = writer();
    const [invoice, creditNote] = await Promise.all(documents().map((entries) => prepare(w, entries)));
    if (invoice === undefined || creditNote === undefined) throw new Error('two documents expected');
    // Marks the first piece's text: the file shows it only if the batch write took the piece as it was.
    const piece = invoice as unknown as { text: string };
    piece.text = piece.text.replace(/^(.)/, 'X');
    await w.writeJournalBatch(sampleBatch('je-marked'), [invoice, creditNote]);
    const written = await readFile(w.filesFor('je-marked').data);
    expect(written[0]).toBe('X'.charCodeAt(0));
  });

  it('renders from the entries when the prepared records are of other entries, or of another writer', async () => {
    const plain = writer();
    await plain.writeJournalBatch(sampleBatch('je-plain'));
    const expected = await readFile(plain.filesFor('je-plain').data);
    const w = writer();
    const [invoice, creditNote] = documents();
    if (invoice === undefined || creditNote === undefined) throw new Error('two documents expected');
    const changed = [{ ...invoice[0]!, description: 'אחר' }, ...invoice.slice(1)];
    const other = writer({ text_direction: 'visual' });
    const text = async (from: HashavshevetWriter) =>
      ((await prepare(from, invoice)) as unknown as { text: string }).text;
    expect(await text(other)).not.toBe(await text(w));
    const cases = [
      [await prepare(w, changed), await prepare(w, creditNote)],
      [await prepare(w, invoice)],
      [await prepare(w, creditNote), await prepare(w, invoice)],
      // Another writer whose records differ (visual order), so using its piece would show in the file.
      [await prepare(other, invoice), await prepare(w, creditNote)],
      [await prepare(w, invoice), await prepare(w, creditNote), await prepare(w, creditNote)],
    ];
    for (const [i, prepared] of cases.entries()) {
      const key = `je-case-${i}`;
      await w.writeJournalBatch(sampleBatch(key), prepared);
      expect(await readFile(w.filesFor(key).data)).toEqual(expected);
    }
  });

  it('keeps nothing under the sequence rule, whose numbers depend on the batch', async () => {
    const w = writer({ long_references: 'sequence' });
    const [invoice] = documents();
    expect(await w.prepareEntries(invoice ?? [])).toEqual({ refusal: null, prepared: null });
  });

  it('answers with the precheck refusal', async () => {
    const w = writer();
    const [invoice] = documents();
    const bad = (invoice ?? []).map((e) => ({ ...e, description: 'tab\there' }));
    const checked = await w.prepareEntries(bad);
    expect(checked.refusal).toMatch(/U\+0009/);
    expect(checked.refusal).toBe(await w.precheckEntries(bad));
  });
});
