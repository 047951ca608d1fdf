/** The csv-sales drop folder on a real temporary folder: parsing, pending files, atomic moves to done/ and failed/. */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  csvSalesConfigSchema,
  csvSalesConnectorDefinition,
  CsvSalesSource,
  parseSalesFile,
  salesFolders,
  SalesFileError,
} from '../../../connectors/csv-sales/index.js';
import { PluginRegistry } from '../../../src/plugin/index.js';

const Z_FILE = [
  'branch_code,z_number,closed_at,total_before_vat,tips,orders_count',
  'TLV01,1001,2026-11-20T23:10:00+02:00,12500.5,300,120',
  'HRZ01,2001,2026-11-20T23:40:00+02:00,9800.00,,95',
].join('\r\n');

const ITEM_FILE = [
  'Branch_Code;Z_Number;Line_Number;Value_Date;Item_Code;Item_Name;Quantity;Unit_Price;Total;Main_Category',
  'TLV01;1001;1;2026-11-20T12:00:00+02:00;B-100;"Burger; large";2;54.9;109.80;Mains',
  'TLV01;1001;;2026-11-20T12:05:00+02:00;D-7;Lemonade;1;14;14;',
].join('\n');

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-sales-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function source(overrides: Record<string, unknown> = {}): CsvSalesSource {
  const config = csvSalesConfigSchema.parse({ in_dir: 'in', min_age: 0, ...overrides });
  return new CsvSalesSource(config, salesFolders(config, dir));
}

async function drop(name: string, content: string | Buffer): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, 'in'), { recursive: true });
  await writeFile(join(dir, 'in', name), content);
}

describe('parseSalesFile', () => {
  it('reads Z-reports with their extra columns and decides the kind from the header', () => {
    const batch = parseSalesFile('z.csv', Z_FILE, ',');
    expect(batch.itemSales).toEqual([]);
    expect(batch.zReports).toEqual([
      {
        branchCode: 'TLV01',
        zNumber: '1001',
        closedAt: '2026-11-20T23:10:00+02:00',
        totalBeforeVat: '12500.5',
        fields: { tips: '300', orders_count: '120' },
      },
      {
        branchCode: 'HRZ01',
        zNumber: '2001',
        closedAt: '2026-11-20T23:40:00+02:00',
        totalBeforeVat: '9800.00',
        fields: { tips: null, orders_count: '95' },
      },
    ]);
  });

  it('reads item sales with quoted separators, header names in any case and optional line numbers', () => {
    const batch = parseSalesFile('items.csv', ITEM_FILE, ';');
    expect(batch.zReports).toEqual([]);
    expect(batch.itemSales.map((s) => [s.itemName, s.lineNumber, s.fields['main_category']])).toEqual([
      ['Burger; large', 1, 'Mains'],
      ['Lemonade', null, null],
    ]);
  });

  it('names the lines and columns at fault', () => {
    const bad = 'branch_code,z_number,closed_at,total_before_vat\nTLV01,,2026-11-20T23:10:00Z,12a\n';
    expect(() => parseSalesFile('bad.csv', bad, ',')).toThrow(
      /line 2: z_number is empty; line 2: total_before_vat "12a" is not a number/,
    );
    expect(() => parseSalesFile('x.csv', 'a,b\n1,2\n', ',')).toThrow(SalesFileError);
    expect(() => parseSalesFile('x.csv', 'item_code,total\n', ',')).toThrow(
      /without column\(s\) branch_code/,
    );
  });
});

describe('CsvSalesSource', () => {
  it('lists dropped files as batches and moves them to done/ or failed/', async () => {
    await drop('a-z.csv', Z_FILE);
    await drop('b-items.csv', ITEM_FILE.replaceAll(';', ','));
    await drop('notes.txt', 'not a sales file');
    const sales = source();
    const batches = await sales.listPendingSales();
    expect(batches.map((b) => b.ref)).toEqual(['a-z.csv', 'b-items.csv']);

    await sales.markSalesBatch('a-z.csv', 'done');
    await sales.markSalesBatch('b-items.csv', 'failed');
    expect(await readdir(join(dir, 'in', 'done'))).toEqual(['a-z.csv']);
    expect(await readdir(join(dir, 'in', 'failed'))).toEqual(['b-items.csv']);
    expect((await sales.listPendingSales()).map((b) => b.ref)).toEqual([]);
    // A mark repeated after an interruption finds the file already moved.
    await expect(sales.markSalesBatch('a-z.csv', 'done')).resolves.toBeUndefined();
    await expect(sales.markSalesBatch('never-dropped.csv', 'done')).rejects.toThrow(
      /neither in the drop folder/,
    );
  });

  it('keeps an earlier file of the same name when a file is dropped and processed again', async () => {
    const sales = source();
    await drop('z.csv', Z_FILE);
    await sales.markSalesBatch('z.csv', 'done');
    await drop('z.csv', Z_FILE);
    await sales.markSalesBatch('z.csv', 'done');
    expect((await readdir(join(dir, 'in', 'done'))).sort()).toEqual(['z-2.csv', 'z.csv']);
  });

  it('takes a file whose modification time is ahead of the clock when min_age is 0', async () => {
    await drop('z.csv', Z_FILE);
    const ahead = new Date(Date.now() + 60_000);
    await utimes(join(dir, 'in', 'z.csv'), ahead, ahead);
    expect((await source().listPendingSales()).map((b) => b.ref)).toEqual(['z.csv']);
    expect(await source({ min_age: '1s' }).listPendingSales()).toEqual([]);
  });

  it('moves an unreadable file to failed/ at once with the reason beside it', async () => {
    await drop('broken.csv', 'hello,world\n1,2\n');
    await drop('good.csv', Z_FILE);
    const batches = await source().listPendingSales();
    expect(batches.map((b) => b.ref)).toEqual(['good.csv']);
    expect(existsSync(join(dir, 'in', 'broken.csv'))).toBe(false);
    const reason = await readFile(join(dir, 'in', 'failed', 'broken.csv.error.txt'), 'utf8');
    expect(reason).toMatch(/neither item_code .* nor total_before_vat/);
  });

  it('leaves files younger than min_age for the next run', async () => {
    await drop('fresh.csv', Z_FILE);
    await drop('old.csv', Z_FILE);
    const old = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'in', 'old.csv'), old, old);
    const batches = await source({ min_age: '30s' }).listPendingSales();
    expect(batches.map((b) => b.ref)).toEqual(['old.csv']);
  });

  it('decodes windows-1255 files', async () => {
    const hebrew =
      'branch_code,z_number,value_date,item_code,item_name,quantity,unit_price,total\n' +
      'TLV01,1,2026-11-20T12:00:00Z,F-1,פלאפל,1,20,20\n';
    await drop('heb.csv', iconv.encode(hebrew, 'windows-1255'));
    const [batch] = await source({ encoding: 'windows-1255' }).listPendingSales();
    expect(batch?.itemSales[0]?.itemName).toBe('פלאפל');
  });

  it('refuses a windows-1255 file read as UTF-8, naming the line at fault and the setting', async () => {
    const hebrew =
      'branch_code,z_number,value_date,item_code,item_name,quantity,unit_price,total\n' +
      'TLV01,1,2026-11-20T12:00:00Z,F-1,פלאפל,1,20,20\n';
    await drop('heb.csv', iconv.encode(hebrew, 'windows-1255'));
    const registry = new PluginRegistry().register(csvSalesConnectorDefinition);
    const connector = await registry.createConnector(
      'csv-sales',
      { in_dir: 'in', min_age: 0 },
      { name: 'pos', baseDir: dir, configFile: '/etc/supply-sync/pos.yaml' },
    );
    const sales = connector.capabilities.salesSource;
    expect(await sales?.listPendingSales()).toEqual([]);
    expect(sales?.rejectedFiles?.()).toMatchObject([{ file: 'heb.csv', line: 2 }]);
    const reason = await readFile(join(dir, 'in', 'failed', 'heb.csv.error.txt'), 'utf8');
    expect(reason).toContain(
      'line 2 is not UTF-8 text, which /etc/supply-sync/pos.yaml: connectors.pos.encoding says the files are',
    );
    expect(reason).toContain('Set encoding: windows-1255');
    await connector.close();
  });

  it('fails a listing when the drop folder is not there, naming the setting, instead of finding nothing', async () => {
    const registry = new PluginRegistry().register(csvSalesConnectorDefinition);
    const connector = await registry.createConnector(
      'csv-sales',
      { in_dir: 'pos-exprot', min_age: 0 },
      { name: 'pos', baseDir: dir, configFile: '/etc/supply-sync/pos.yaml' },
    );
    const listing = connector.capabilities.salesSource?.listPendingSales();
    await expect(listing).rejects.toMatchObject({
      code: 'connector_config_invalid',
      message: expect.stringContaining(
        `/etc/supply-sync/pos.yaml: connectors.pos.in_dir: the drop folder ${join(dir, 'pos-exprot')} does not exist`,
      ),
    });
    await connector.close();
  });

  it('is created through the connector registry with a strict config and checks its folder', async () => {
    const registry = new PluginRegistry().register(csvSalesConnectorDefinition);
    await expect(
      registry.createConnector('csv-sales', { in_dir: 'in', unknown_key: 1 }, { name: 'pos', baseDir: dir }),
    ).rejects.toThrow(/unknown_key|Unrecognized/);
    const missing = await registry.createConnector(
      'csv-sales',
      { in_dir: 'in' },
      { name: 'pos', baseDir: dir },
    );
    expect((await missing.check())[0]?.status).toBe('fail');
    await drop('z.csv', Z_FILE);
    const connector = await registry.createConnector(
      'csv-sales',
      { in_dir: 'in', min_age: 0 },
      { name: 'pos', baseDir: dir },
    );
    expect((await connector.check())[0]?.status).toBe('ok');
    const batches = await connector.capabilities.salesSource?.listPendingSales();
    expect(batches?.map((b) => b.ref)).toEqual(['z.csv']);
    await connector.close();
  });
});
