import fc from 'fast-check';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Connector } from '../../src/connector-contract/connector.js';
import { capabilityOf } from '../support/capability.js';
import type { ErpOrder } from '../../src/connector-contract/orders.js';
import { PluginRegistry } from '../../src/plugin/index.js';
import { csvErpConnectorDefinition } from '../../connectors/csv-erp/index.js';
import { csvRecords, formatCsv, parseCsv } from '../../src/kit/csv.js';

describe('CSV format', () => {
  it('round-trips any cells through format and parse', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'ש', ',', ';', '"', '\n', '\r\n', ' ', '1') });
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        (rows) => {
          const width = rows[0]?.length ?? 2;
          const square = rows.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? 'x'));
          expect(parseCsv(formatCsv(square, ','), ',')).toEqual(square);
        },
      ),
    );
  });

  it('reads records by lower-cased header, skipping a BOM and blank lines', () => {
    expect(csvRecords('\ufeffSKU;Name\r\nA-1;"Tomatoes; red"\r\n\r\n', ';')).toEqual([
      { sku: 'A-1', name: 'Tomatoes; red' },
    ]);
  });
});

function order(apiOrderId: string): ErpOrder {
  return {
    apiOrderId,
    orderNumber: 'PO-1001',
    customerNumber: 'C-10042',
    shipTo: 'TLV01',
    purchaseType: 'FC',
    orderDate: '2026-11-22',
    deliveryDate: '2026-11-24',
    windowFrom: null,
    windowTo: null,
    currency: 'ILS',
    totalBeforeVat: '69.00',
    vat: '12.42',
    totalWithVat: '81.42',
    notes: 'בבקשה לפני 9',
    lines: [
      {
        lineNumber: 1,
        apiLineId: 'l1',
        itemCode: 'VEG-001-1',
        description: 'עגבניות',
        quantity: '3',
        unit: 'kg',
        unitPrice: '23.00',
        discountPct: null,
        total: '69.00',
        vatExempt: true,
        notes: null,
      },
    ],
  };
}

describe('csv-erp connector', () => {
  let dir: string;
  let connector: Connector;
  const inDir = () => path.join(dir, 'from-erp');
  const ordersDir = () => path.join(dir, 'to-erp', 'orders');

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'supply-sync-csv-erp-'));
    const registry = new PluginRegistry().register(csvErpConnectorDefinition);
    connector = await registry.createConnector(
      'csv-erp',
      { in_dir: 'from-erp', out_dir: 'to-erp', separator: ';', encoding: 'windows-1255' },
      { name: 'erp', baseDir: dir },
    );
    await mkdir(inDir(), { recursive: true });
  });
  afterEach(async () => {
    await connector.close();
    await rm(dir, { recursive: true, force: true });
  });

  const put = (name: string, text: string) =>
    writeFile(path.join(inDir(), name), iconv.encode(text, 'windows-1255'));

  it('reads catalog snapshots in windows-1255 and refuses a missing products file', async () => {
    const catalog = capabilityOf(connector, 'catalogSource', 'erp');
    await expect(catalog.readProducts()).rejects.toMatchObject({ code: 'connector_input_invalid' });
    await put('products.csv', 'sku;name;unit;vat_exempt\r\nVEG-001-1;עגבניות;kg;Y\r\n');
    await put('prices.csv', 'price_list;sku;price\r\nPL-STD;VEG-001-1;6.90\r\n');
    expect(await catalog.readProducts()).toEqual({
      products: [expect.objectContaining({ sku: 'VEG-001-1', name: 'עגבניות', unit: 'kg', vatExempt: true })],
      completeness: { complete: true },
    });
    expect(await catalog.readPrices()).toEqual([
      { priceList: 'PL-STD', sku: 'VEG-001-1', price: '6.90', minQuantity: null, validFrom: null },
    ]);
    expect(await catalog.readAvailability()).toEqual([]);
    expect((await connector.check()).map((c) => c.status)).toEqual(['ok', 'ok']);
  });

  it('refuses a windows-1255 export read as UTF-8, naming the file, the line and the setting', async () => {
    const registry = new PluginRegistry().register(csvErpConnectorDefinition);
    const utf8 = await registry.createConnector(
      'csv-erp',
      { in_dir: 'from-erp', out_dir: 'to-erp', separator: ';', encoding: 'utf-8' },
      { name: 'erp', baseDir: dir },
    );
    try {
      // Decoded as UTF-8, the Hebrew name would reach the API as U+FFFD: the read fails instead.
      await put('products.csv', 'sku;name;unit;vat_exempt\r\nVEG-001-1;עגבניות;kg;Y\r\n');
      const read = capabilityOf(utf8, 'catalogSource', 'erp').readProducts();
      await expect(read).rejects.toMatchObject({ code: 'connector_input_invalid', retryable: false });
      await expect(read).rejects.toThrow(
        `${path.join(inDir(), 'products.csv')}: line 2 is not UTF-8 text, which connectors.erp.encoding says the files are`,
      );
      // A UTF-8 export caught while the ERP writes it, cut inside a Hebrew letter: its whole lines are read and the
      // cut one is left out, as for any cut line.
      const whole = Buffer.from(
        'sku;name;unit;vat_exempt\r\nVEG-001-1;עגבניות;kg;Y\r\nVEG-002-1;מלפפון',
        'utf8',
      );
      await writeFile(path.join(inDir(), 'products.csv'), whole.subarray(0, whole.length - 1));
      expect(await capabilityOf(utf8, 'catalogSource', 'erp').readProducts()).toMatchObject({
        products: [expect.objectContaining({ sku: 'VEG-001-1', name: 'עגבניות' })],
        completeness: { complete: false },
      });
    } finally {
      await utf8.close();
    }
  });

  it('lists document files with their PDF and moves them to done/ once sent', async () => {
    await mkdir(path.join(inDir(), 'documents'), { recursive: true });
    await put(
      'documents/IV7001.csv',
      'type;number;date;customer_number;total_before_vat;vat;total_with_vat;line_number;item_code;description;quantity;unit_price;total;api_order_id\r\n' +
        'invoice;7001;2026-11-22;C-10042;69.00;0.00;69.00;1;VEG-001-1;עגבניות;3;23.00;69.00;ord_1\r\n',
    );
    await writeFile(path.join(inDir(), 'documents', 'IV7001.pdf'), '%PDF-1.4');
    const documents = capabilityOf(connector, 'documentSource', 'erp');
    const [document] = await documents.listPendingDocuments();
    expect(document).toMatchObject({
      ref: 'IV7001.csv',
      number: '7001',
      attachmentPath: path.join(inDir(), 'documents', 'IV7001.pdf'),
      apiOrderIds: ['ord_1'],
    });
    expect(document?.lines).toHaveLength(1);
    await documents.markDocumentSent('IV7001.csv', 'doc_1');
    expect(await documents.listPendingDocuments()).toEqual([]);
    expect((await readdir(path.join(inDir(), 'documents', 'done'))).sort()).toEqual([
      'IV7001.csv',
      'IV7001.pdf',
    ]);
  });

  it('reads confirmations, including a rejection without lines', async () => {
    await mkdir(path.join(inDir(), 'confirmations'), { recursive: true });
    await put(
      'confirmations/c1.csv',
      'api_order_id;kind;reason;item_code;quantity_confirmed\r\nord_9;reject;סגור;;\r\n',
    );
    const source = capabilityOf(connector, 'confirmationSource', 'erp');
    expect(await source.listPendingConfirmations()).toEqual([
      { ref: 'c1.csv', apiOrderId: 'ord_9', erpOrderNumber: null, kind: 'reject', reason: 'סגור', lines: [] },
    ]);
    await source.markConfirmationSent('c1.csv');
    expect(await source.listPendingConfirmations()).toEqual([]);
  });

  it('delivers an order file exactly once, even after the ERP consumed it', async () => {
    const sink = capabilityOf(connector, 'orderSink', 'erp');
    expect(await sink.findOrder('ord_1')).toBeNull();
    expect(await sink.writeOrder(order('ord_1'))).toEqual({ erpOrderNumber: 'PO-1001', status: 'written' });
    const file = path.join(ordersDir(), 'ord_1.csv');
    const text = iconv.decode(await readFile(file), 'windows-1255');
    expect(csvRecords(text, ';')).toEqual([
      expect.objectContaining({
        change: 'new',
        api_order_id: 'ord_1',
        item_code: 'VEG-001-1',
        description: 'עגבניות',
      }),
    ]);
    await rm(file);
    expect(await sink.writeOrder(order('ord_1'))).toEqual({
      erpOrderNumber: 'PO-1001',
      status: 'already_written',
    });
    expect(existsSync(file)).toBe(false);
    expect(await sink.findOrder('ord_1')).not.toBeNull();
  });

  it('completes a delivery interrupted between its marker and its rename', async () => {
    const sink = capabilityOf(connector, 'orderSink', 'erp');
    await mkdir(path.join(ordersDir(), '.supply-sync', 'tmp'), { recursive: true });
    await mkdir(path.join(ordersDir(), '.supply-sync', 'sent'), { recursive: true });
    await writeFile(path.join(ordersDir(), '.supply-sync', 'tmp', 'ord_2.csv'), 'interrupted content');
    await writeFile(path.join(ordersDir(), '.supply-sync', 'sent', 'ord_2.csv'), '');
    expect((await sink.writeOrder(order('ord_2'))).status).toBe('already_written');
    expect(await readFile(path.join(ordersDir(), 'ord_2.csv'), 'utf8')).toBe('interrupted content');
  });

  it('writes updates and cancellations once each, only for orders it delivered', async () => {
    const sink = capabilityOf(connector, 'orderSink', 'erp');
    expect(await sink.cancelOrder('ord_x', 'no')).toEqual({ status: 'not_found' });
    await sink.writeOrder(order('ord_3'));
    const changed = { ...order('ord_3'), deliveryDate: '2026-11-25' };
    expect((await sink.applyOrderUpdate(changed)).status).toBe('updated');
    expect((await sink.applyOrderUpdate(changed)).status).toBe('updated');
    expect(await sink.cancelOrder('ord_3', 'buyer cancelled')).toEqual({ status: 'cancelled' });
    const files = (await readdir(ordersDir())).filter((name) => name.endsWith('.csv')).sort();
    expect(files).toHaveLength(3);
    expect(files[0]).toBe('ord_3.cancel.csv');
    expect(files[1]).toBe('ord_3.csv');
    expect(files[2]).toMatch(/^ord_3\.update-[0-9a-f]{12}\.csv$/);
  });
});
