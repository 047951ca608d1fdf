import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capabilityOf } from '../support/capability.js';
import type { ErpOrder } from '../../src/connector-contract/orders.js';
import { PluginRegistry } from '../../src/plugin/index.js';
import { DEMO_CUSTOMER_NUMBER, BRANCH_SEEDS } from '../../src/demo-data/index.js';
import type { Clock } from '../../src/shared/clock.js';
import { parseMoney, sumMoney } from '../../src/shared/decimal.js';
import {
  demoErpConnectorDefinition,
  demoParts,
  simulateErpActivity,
} from '../../connectors/sql/demo-erp/index.js';
import type { Connector } from '../../src/connector-contract/connector.js';
import { openDemoErp, type DemoErp } from '../../connectors/sql/demo-erp/demo-erp.js';

const fixedClock: Clock = { now: () => Date.parse('2026-11-22T08:00:00Z'), sleep: () => Promise.resolve() };

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function demoOrder(apiOrderId: string, skus: readonly string[]): ErpOrder {
  return {
    apiOrderId,
    orderNumber: `PO-${apiOrderId}`,
    customerNumber: DEMO_CUSTOMER_NUMBER,
    shipTo: BRANCH_SEEDS[0]?.code ?? null,
    purchaseType: 'FC',
    orderDate: '2026-11-22',
    deliveryDate: '2026-11-24',
    windowFrom: '07:00',
    windowTo: '10:00',
    currency: 'ILS',
    totalBeforeVat: '138.00',
    vat: '24.84',
    totalWithVat: '162.84',
    notes: null,
    lines: skus.map((sku, index) => ({
      lineNumber: index + 1,
      apiLineId: `${apiOrderId}_l${index + 1}`,
      itemCode: sku,
      description: `item ${sku}`,
      quantity: '3',
      unit: 'kg',
      unitPrice: '23.00',
      discountPct: null,
      total: '69.00',
      vatExempt: false,
      notes: null,
    })),
  };
}

describe('demo ERP', () => {
  let dir: string;
  let connector: Connector;
  let erp: DemoErp;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'supply-sync-demo-erp-'));
    const registry = new PluginRegistry().register(demoErpConnectorDefinition);
    connector = await registry.createConnector(
      'demo-erp',
      { data_dir: 'erp' },
      { name: 'erp', baseDir: dir },
    );
    erp = await openDemoErp(path.join(dir, 'erp'));
  });
  afterEach(async () => {
    await erp.driver.close();
    await connector.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is seeded with the sandbox catalog families, prices and the demo buyer as a customer', async () => {
    const catalog = capabilityOf(connector, 'catalogSource', 'erp');
    const { products, completeness } = await catalog.readProducts();
    expect(completeness).toEqual({ complete: true });
    expect(products.map((p) => p.sku)).toEqual(
      demoParts()
        .map((p) => p.sku)
        .sort(),
    );
    expect(products.length).toBeGreaterThan(200);
    const prices = await catalog.readPrices();
    expect(prices).toHaveLength(products.length);
    expect(prices.every((p) => /^\d+\.\d{2}$/.test(p.price) && parseMoney(p.price) > 0n)).toBe(true);
    const availability = await catalog.readAvailability();
    expect(availability.some((a) => !a.available)).toBe(true);
    const customers = await capabilityOf(connector, 'customerDirectory', 'erp').listCustomers();
    expect(customers.map((c) => c.customerNumber)).toContain(DEMO_CUSTOMER_NUMBER);
    expect((await connector.check()).map((c) => c.status)).toEqual(['ok']);
  });

  it('takes an order once, then confirms and invoices it with a PDF through simulate()', async () => {
    const sink = capabilityOf(connector, 'orderSink', 'erp');
    const skus = demoParts()
      .slice(0, 2)
      .map((p) => p.sku);
    const written = await sink.writeOrder(demoOrder('ord_demo_1', skus));
    expect(written).toEqual({ erpOrderNumber: 'SO000001', status: 'written' });
    expect(await sink.writeOrder(demoOrder('ord_demo_1', skus))).toEqual({
      erpOrderNumber: 'SO000001',
      status: 'already_written',
    });

    const result = await simulateErpActivity(erp, {
      clock: fixedClock,
      random: seeded(7),
      documents: 2,
      confirmations: 1,
    });
    expect(result.confirmations).toHaveLength(1);
    expect(result.documents).toHaveLength(2);

    const confirmations = capabilityOf(connector, 'confirmationSource', 'erp');
    const [confirmation] = await confirmations.listPendingConfirmations();
    expect(confirmation).toMatchObject({ apiOrderId: 'ord_demo_1', erpOrderNumber: 'SO000001' });
    expect(confirmation?.lines.map((l) => l.apiLineId)).toEqual(['ord_demo_1_l1', 'ord_demo_1_l2']);
    await confirmations.markConfirmationSent(confirmation?.ref ?? '');
    expect(await confirmations.listPendingConfirmations()).toEqual([]);

    const documents = capabilityOf(connector, 'documentSource', 'erp');
    const pending = await documents.listPendingDocuments();
    expect(pending).toHaveLength(2);
    const invoice = pending.find((d) => d.apiOrderIds.includes('ord_demo_1'));
    expect(invoice).toMatchObject({
      type: 'invoice',
      customerNumber: DEMO_CUSTOMER_NUMBER,
      date: '2026-11-22',
    });
    expect(invoice?.lines.map((l) => l.apiOrderLineId)).toEqual(['ord_demo_1_l1', 'ord_demo_1_l2']);
    for (const document of pending) {
      expect(sumMoney(document.lines.map((l) => l.total))).toBe(document.totalBeforeVat);
      expect(parseMoney(document.totalBeforeVat) + parseMoney(document.vat)).toBe(
        parseMoney(document.totalWithVat),
      );
      const pdf = await readFile(document.attachmentPath ?? '');
      expect(pdf.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
      expect(pdf.toString('latin1')).toContain(document.number);
    }
    await documents.markDocumentSent(pending[0]?.ref ?? '', 'doc_1');
    expect((await documents.listPendingDocuments()).map((d) => d.ref)).toEqual([pending[1]?.ref]);

    const reactions = capabilityOf(connector, 'documentReactionSink', 'erp');
    const reaction = {
      apiDocumentId: 'doc_1',
      documentType: 'invoice',
      documentNumber: pending[0]?.number ?? '',
      buyerStatus: 'received_with_differences',
      occurredAt: '2026-11-22T10:00:00+02:00',
      differences: [
        {
          lineRef: 'l1',
          itemCode: skus[0] ?? null,
          field: 'quantity',
          issued: '3',
          received: '2',
          note: null,
        },
      ],
    };
    await reactions.writeDocumentReaction(reaction);
    await reactions.writeDocumentReaction(reaction);
    const stored = await erp.driver.query(
      'SELECT FIELD, RECEIVED FROM DOCDIFFERENCES WHERE API_DOCUMENT_ID = :id',
      {
        id: 'doc_1',
      },
    );
    expect(stored.rows).toEqual([{ FIELD: 'quantity', RECEIVED: '2' }]);
    const status = await erp.driver.query('SELECT BUYERSTATUS FROM DOCUMENTS WHERE API_DOCUMENT_ID = :id', {
      id: 'doc_1',
    });
    expect(status.rows).toEqual([{ BUYERSTATUS: 'received_with_differences' }]);
  });

  it('changes prices and availability so the next catalog snapshot differs', async () => {
    const catalog = capabilityOf(connector, 'catalogSource', 'erp');
    const before = [
      JSON.stringify(await catalog.readPrices()),
      JSON.stringify(await catalog.readAvailability()),
    ];
    const result = await simulateErpActivity(erp, {
      clock: fixedClock,
      random: seeded(3),
      documents: 0,
      confirmations: 0,
      catalogChanges: 4,
    });
    expect(result.catalogChanges).toHaveLength(4);
    const after = [
      JSON.stringify(await catalog.readPrices()),
      JSON.stringify(await catalog.readAvailability()),
    ];
    expect(after).not.toEqual(before);
  });

  it('writes journal batches into its GL table exactly once', async () => {
    const books = capabilityOf(connector, 'accountingWriter', 'erp');
    const batch = {
      batchKey: 'jb-2026-11-22-1',
      entries: (['debit', 'credit'] as const).map((side, index) => ({
        lineNumber: index + 1,
        side,
        account: side === 'debit' ? '5110' : '40001',
        counterAccount: null,
        amount: '1180.00',
        currency: 'ILS',
        date: '2026-11-20',
        valueDate: '2026-11-20',
        period: '2026-11',
        reference: '7001',
        reference2: null,
        branchCode: 'TLV01',
        movementType: null,
        description: 'Galil Fresh invoice 7001',
        sourceIds: [`jl_${index}`],
      })),
    };
    expect(await books.writeJournalBatch(batch)).toMatchObject({ status: 'written', location: 'GLJOURNAL' });
    expect(await books.writeJournalBatch(batch)).toMatchObject({ status: 'already_written' });
    expect(await books.hasBatch(batch.batchKey)).toBe(true);
    const { rows } = await erp.driver.query('SELECT DEBIT, CREDIT FROM GLJOURNAL ORDER BY LINE');
    expect(rows).toEqual([
      { DEBIT: '1180.00', CREDIT: '0.00' },
      { DEBIT: '0.00', CREDIT: '1180.00' },
    ]);
    expect((await stat(erp.file)).isFile()).toBe(true);
  });
});
