import { mkdtemp, mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../src/connector-contract/index.js';
import { PluginRegistry } from '../../../src/plugin/index.js';
import {
  CsvAccountingWriter,
  csvAccountingConfigSchema,
  csvAccountingConnectorDefinition,
} from '../../../connectors/csv-accounting/index.js';
import { entry, sampleBatch } from '../hashavshevet/fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-accounting-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function writer(overrides: Record<string, unknown> = {}): CsvAccountingWriter {
  return new CsvAccountingWriter(csvAccountingConfigSchema.parse({ output_dir: dir, ...overrides }), 'books');
}

/** A small RFC 4180 reader written for the test: quoted cells, doubled quotes, CRLF rows only. */
function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === separator) {
      row.push(cell);
      cell = '';
    } else if (ch === '\r') {
      if (text[i + 1] !== '\n') throw new Error('CR without LF');
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else if (ch === '\n') throw new Error('LF without CR');
    else cell += ch;
  }
  if (cell !== '' || row.length > 0) throw new Error('last row has no CRLF');
  return rows;
}

describe('csv accounting writer', () => {
  it('writes the default columns in UTF-8 with CRLF, DD/MM/YYYY dates and debit/credit columns', async () => {
    const w = writer();
    const result = await w.writeJournalBatch(sampleBatch());
    expect(result).toMatchObject({ status: 'written', entryCount: 7, location: w.fileFor('je-0001') });
    const rows = parseCsv(await readFile(w.fileFor('je-0001'), 'utf8'), ',');
    expect(rows[0]).toEqual([
      'batch',
      'line',
      'date',
      'value_date',
      'reference',
      'reference2',
      'movement_type',
      'account',
      'counter_account',
      'debit',
      'credit',
      'branch',
      'description',
    ]);
    expect(rows).toHaveLength(8);
    expect(rows[1]).toEqual([
      'je-0001',
      '1',
      '07/03/2026',
      '07/03/2026',
      '1001',
      '',
      'חש',
      '60010',
      '',
      '1000.00',
      '0.00',
      '',
      'ירקות טריים סניף ת"א',
    ]);
    expect(rows[5]?.slice(2, 6)).toEqual(['08/03/2026', '31/03/2026', '2002', '123456789']);
    const cents = (s: string | undefined) => BigInt((s ?? '0').replace('.', ''));
    const debit = rows.slice(1).reduce((sum, r) => sum + cents(r[9]), 0n);
    const credit = rows.slice(1).reduce((sum, r) => sum + cents(r[10]), 0n);
    expect(debit).toBe(credit);
    // the quote inside the description forces quoting with a doubled quote
    expect(await readFile(w.fileFor('je-0001'), 'utf8')).toContain('"ירקות טריים סניף ת""א"');
  });

  it('honours columns, constants, separator, quoting, date format, BOM', async () => {
    const w = writer({
      columns: [
        { header: 'Company', value: '01' },
        { header: 'Date', field: 'date' },
        { header: 'Account', field: 'account' },
        { header: 'Amount', field: 'amount' },
        { header: 'Side', field: 'side' },
      ],
      separator: ';',
      date_format: 'YYYY.MM.DD',
      quoting: 'all',
      bom: true,
    });
    await w.writeJournalBatch(sampleBatch());
    const bytes = await readFile(w.fileFor('je-0001'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.split('\r\n')[1]).toBe('"01";"2026.03.07";"60010";"1000.00";"debit"');
    expect(parseCsv(text, ';')[7]).toEqual(['01', '2026.03.07', '18000', '17.00', 'credit']);
  });

  it('writes windows-1255 and refuses characters outside the shared Hebrew set', async () => {
    const w = writer({ encoding: 'windows-1255' });
    await w.writeJournalBatch(sampleBatch());
    const bytes = await readFile(w.fileFor('je-0001'));
    const text = new TextDecoder('windows-1255').decode(bytes);
    expect(parseCsv(text, ',')[1]?.[12]).toBe('ירקות טריים סניף ת"א');
    expect(bytes.length).toBe(text.length);
    const bad = {
      batchKey: 'je-bad',
      entries: [
        entry(1, { side: 'debit' as const, account: '1', amount: '5.00', description: '5₪' }),
        entry(2, { side: 'credit' as const, account: '2', amount: '5.00' }),
      ],
    };
    const error = await w.writeJournalBatch(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as Error).message).toMatch(/U\+20AA/);
    expect(await w.precheckEntries(bad.entries)).toMatch(/char_map/);
    expect(await w.hasBatch('je-bad')).toBe(false);
    // UTF-8 output takes the same text as is
    expect(await writer().precheckEntries(bad.entries)).toBeNull();
  });

  it('is idempotent per batch key, also after the file moves to done/', async () => {
    const w = writer();
    expect(await w.hasBatch('je-0001')).toBe(false);
    await w.writeJournalBatch(sampleBatch());
    await mkdir(join(dir, 'done'));
    await rename(w.fileFor('je-0001'), join(dir, 'done', 'journal-je-0001.csv'));
    expect(await w.hasBatch('je-0001')).toBe(true);
    expect((await w.writeJournalBatch(sampleBatch())).status).toBe('already_written');
    expect(await readdir(dir)).toEqual(['done']);
  });

  it('registers as type csv and rejects unknown keys', async () => {
    const registry = new PluginRegistry([csvAccountingConnectorDefinition]);
    const connector = await registry.createConnector(
      'csv',
      { output_dir: 'out' },
      { name: 'books', baseDir: dir },
    );
    expect(connector.capabilities.accountingWriter).toBeInstanceOf(CsvAccountingWriter);
    expect(registry.connector('csv')?.configSchema).toBe(csvAccountingConfigSchema);
    expect(() => csvAccountingConfigSchema.parse({ output_dir: dir, seperator: ';' })).toThrow(/seperator/);
    expect(() => csvAccountingConfigSchema.parse({ output_dir: dir, date_format: 'tomorrow' })).toThrow();
  });
});
