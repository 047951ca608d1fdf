import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalBatch, JournalEntry } from '../../src/connector-contract/journal.js';
import type { ErpOrder } from '../../src/connector-contract/orders.js';
import { SqlAccountingWriter } from '../../connectors/sql/accounting-writer.js';
import { createTableIfMissing, quoteIdentifier } from '../../src/kit/sql/dialect.js';
import type { SqlDriver } from '../../src/kit/sql/driver.js';
import { commitGated } from '../../src/kit/sql/commit-gated.js';
import { SqlCatalogSource } from '../../connectors/sql/erp-catalog.js';
import { SqlDocumentSource } from '../../connectors/sql/erp-documents.js';
import { SqlOrderSink } from '../../connectors/sql/erp-orders.js';
import { SqlConfirmationSource } from '../../connectors/sql/erp-reactions.js';
import { SqlSalesSource } from '../../connectors/sql/erp-sales.js';
import { SqlMirrorSink } from '../../connectors/sql/mirror-sink.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { MirrorTableSpec } from '../../src/connector-contract/mirror.js';
import { journalTableSchema } from '../../connectors/sql/journal-config.js';
import { createFixtureSchema, fixtureStatements } from './sql-fixture.js';

export interface SqlSuiteTarget {
  /** Opens a driver on an empty, private database or schema. */
  open(): Promise<SqlDriver>;
  /** Drops what open() created. */
  dispose(): Promise<void>;
}

/** Removes trailing fraction zeros, for databases that pad decimals to the column's scale (SQL Server). */
function canonicalDecimal(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`expected a decimal string, got ${typeof value}`);
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

function entry(lineNumber: number, side: 'debit' | 'credit', amount: string, account: string): JournalEntry {
  return {
    lineNumber,
    side,
    account,
    counterAccount: side === 'debit' ? '40001' : '60010',
    amount,
    currency: 'ILS',
    date: '2026-11-20',
    valueDate: '2026-11-21',
    period: '2026-11',
    reference: '123456',
    reference2: null,
    branchCode: 'TLV',
    movementType: 'חשב',
    description: `שורה ${lineNumber} line`,
    sourceIds: [`jl_${lineNumber}`],
  };
}

function order(apiOrderId: string, itemCodes: readonly string[]): ErpOrder {
  return {
    apiOrderId,
    orderNumber: `PO-${apiOrderId}`,
    customerNumber: 'C1001',
    shipTo: null,
    purchaseType: 'FC',
    orderDate: '2026-11-22',
    deliveryDate: '2026-11-24',
    windowFrom: null,
    windowTo: null,
    currency: 'ILS',
    totalBeforeVat: '100.00',
    vat: '18.00',
    totalWithVat: '118.00',
    notes: null,
    lines: itemCodes.map((itemCode, index) => ({
      lineNumber: index + 1,
      apiLineId: `${apiOrderId}_l${index + 1}`,
      itemCode,
      description: `item ${itemCode}`,
      quantity: '2.500',
      unit: 'kg',
      unitPrice: '40.00',
      discountPct: null,
      total: '100.00',
      vatExempt: false,
      notes: null,
    })),
  };
}

export function sharedSqlSuite(title: string, target: SqlSuiteTarget | undefined, skipReason: string): void {
  describe.skipIf(target === undefined)(
    target === undefined ? `${title} (skipped: ${skipReason})` : title,
    () => {
      let driver: SqlDriver;

      beforeAll(async () => {
        if (target === undefined) return;
        driver = await target.open();
        await createFixtureSchema(driver);
      });
      afterAll(async () => {
        await driver?.close();
        await target?.dispose();
      });

      const count = async (sql: string, params = {}) =>
        Number((await driver.query(sql, params)).rows[0]?.['n']);
      const writer = (table: string) =>
        new SqlAccountingWriter(
          driver,
          journalTableSchema.parse({
            table,
            create_tables: true,
            batch_key_table: `${table}_batches`,
            columns: {
              line_number: 'line_no',
              account: 'account',
              counter_account: 'counter_account',
              debit: 'debit',
              credit: 'credit',
              date: 'ref_date',
              reference: 'ref1',
              branch_code: 'branch',
              description: 'details',
              movement_type: 'movement_type',
            },
          }),
          'books',
        );

      it('binds named parameters, repeated names and nulls; leaves literals, comments and casts alone', async () => {
        const { rows } = await driver.query(
          `SELECT :a AS p1, @a AS p2, :b AS p3, ':not_a_param' AS lit -- :nor_this
         , CAST(:c AS VARCHAR(10)) AS p4`,
          { a: 'x', b: null, c: 'y', unused: 'ignored' },
        );
        expect(rows).toEqual([{ p1: 'x', p2: 'x', p3: null, lit: ':not_a_param', p4: 'y' }]);
        await expect(driver.query('SELECT :missing AS m', {})).rejects.toThrow(/:missing has no value/);
      });

      it('reports a failing statement as a non-retryable ConnectorError', async () => {
        const error: unknown = await driver
          .query('SELECT * FROM no_such_table')
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConnectorError);
        expect(error).toMatchObject({ code: 'connector_statement_failed', retryable: false });
      });

      it('round-trips decimal values exactly as strings', async () => {
        await driver.query(
          createTableIfMissing(
            driver.dialect,
            't_decimals',
            [
              { name: 'k', type: 'text' },
              { name: 'v', type: 'decimal' },
            ],
            ['k'],
          ),
        );
        const values = ['0.10', '1234567890123.45', '-0.01', '100.00', '0.001', '7'];
        for (const [index, value] of values.entries()) {
          await driver.query('INSERT INTO t_decimals (k, v) VALUES (:k, :v)', { k: `k${index}`, v: value });
        }
        const { rows } = await driver.query('SELECT k, v FROM t_decimals ORDER BY k');
        expect(rows.map((row) => canonicalDecimal(row['v']))).toEqual(values.map(canonicalDecimal));
        if (driver.dialect !== 'mssql') expect(rows.map((row) => row['v'])).toEqual(values);
      });

      it('rolls a transaction back entirely when it fails after the first insert', async () => {
        const failure = driver.transaction(async (tx) => {
          await tx.query(`INSERT INTO t_items (sku, name, unit) VALUES ('ROLLBACK-1', 'x', 'unit')`);
          throw new Error('failure after the header insert');
        });
        await expect(failure).rejects.toThrow('failure after the header insert');
        expect(await count(`SELECT COUNT(*) AS n FROM t_items WHERE sku = 'ROLLBACK-1'`)).toBe(0);
      });

      it('writes a journal batch once; hasBatch is true after it and a re-write is a no-op', async () => {
        const books = writer('gl_once');
        const batch: JournalBatch = {
          batchKey: 'batch-2026-11-21-a',
          entries: [entry(1, 'debit', '1000.10', '60010'), entry(2, 'credit', '1000.10', '40001')],
        };
        expect(await books.hasBatch(batch.batchKey)).toBe(false);
        expect(await books.writeJournalBatch(batch)).toMatchObject({ status: 'written', entryCount: 2 });
        expect(await books.hasBatch(batch.batchKey)).toBe(true);
        expect(await books.writeJournalBatch(batch)).toMatchObject({ status: 'already_written' });
        const { rows } = await driver.query(
          'SELECT line_no, account, debit, credit, ref_date, details, movement_type FROM gl_once ORDER BY line_no',
        );
        expect(rows).toHaveLength(2);
        expect(rows.map((row) => [canonicalDecimal(row['debit']), canonicalDecimal(row['credit'])])).toEqual([
          ['1000.1', '0'],
          ['0', '1000.1'],
        ]);
        expect(rows[0]).toMatchObject({ account: '60010', details: 'שורה 1 line', movement_type: 'חשב' });
        expect(String(rows[0]?.['ref_date']).slice(0, 10)).toBe('2026-11-20');
      });

      it('refuses to write when the companion table of batch keys is gone while the journal holds rows', async () => {
        const batch: JournalBatch = {
          batchKey: 'batch-2026-11-30-lost',
          entries: [entry(1, 'debit', '12.00', '60010'), entry(2, 'credit', '12.00', '40001')],
        };
        expect(await writer('gl_lost').writeJournalBatch(batch)).toMatchObject({ status: 'written' });
        await driver.query(`DROP TABLE ${quoteIdentifier(driver.dialect, 'gl_lost_batches')}`);
        // A new writer, as after a restart: a re-run of the same batch must not find an empty new table.
        const restarted = writer('gl_lost');
        const refused: unknown = await restarted.writeJournalBatch(batch).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(ConnectorError);
        expect(String((refused as Error).message)).toContain(
          'connectors.books.journal.batch_key_table: gl_lost_batches is missing while gl_lost holds rows',
        );
        expect(String((refused as Error).message)).toContain('restore gl_lost_batches');
        expect(await restarted.targetProblem()).toMatchObject({
          detail: expect.stringContaining('gl_lost_batches is missing while gl_lost holds rows'),
        });
        expect(await count('SELECT COUNT(*) AS n FROM gl_lost')).toBe(2);
        await expect(driver.query('SELECT COUNT(*) AS n FROM gl_lost_batches')).rejects.toThrow();
        // Where nothing was written yet, the first run creates both tables as before.
        expect(await writer('gl_fresh').writeJournalBatch(batch)).toMatchObject({ status: 'written' });
      });

      it('leaves no rows and no batch key when a journal batch fails half-way', async () => {
        await driver.query(
          createTableIfMissing(
            driver.dialect,
            'gl_strict',
            [
              { name: 'line_no', type: 'integer' },
              { name: 'account', type: 'text' },
              { name: 'counter_account', type: 'text', nullable: false },
              { name: 'debit', type: 'decimal' },
              { name: 'credit', type: 'decimal' },
              { name: 'ref_date', type: 'date' },
              { name: 'ref1', type: 'text' },
              { name: 'branch', type: 'text' },
              { name: 'details', type: 'text' },
              { name: 'movement_type', type: 'text' },
            ],
            [],
          ),
        );
        const books = writer('gl_strict');
        const broken = { ...entry(2, 'credit', '5.00', '40001'), counterAccount: null };
        const batch: JournalBatch = {
          batchKey: 'batch-broken',
          entries: [entry(1, 'debit', '5.00', '60010'), broken],
        };
        await expect(books.writeJournalBatch(batch)).rejects.toThrow();
        expect(await books.hasBatch('batch-broken')).toBe(false);
        expect(await count('SELECT COUNT(*) AS n FROM gl_strict')).toBe(0);
      });

      it('writes order header and lines atomically, once per API order id', async () => {
        const sink = new SqlOrderSink(driver, fixtureStatements.orders ?? fail(), 'erp');
        const first = await sink.writeOrder(order('ord_1', ['A-100', 'B-200']));
        expect(first.status).toBe('written');
        const again = await sink.writeOrder(order('ord_1', ['A-100', 'B-200']));
        expect(again).toEqual({ erpOrderNumber: first.erpOrderNumber, status: 'already_written' });
        expect(await count(`SELECT COUNT(*) AS n FROM t_order_header WHERE api_order_id = 'ord_1'`)).toBe(1);
        const lines = await driver.query(
          'SELECT item_code, quantity FROM t_order_line WHERE erp_order_number = :n ORDER BY line_no',
          { n: first.erpOrderNumber },
        );
        expect(lines.rows.map((row) => [row['item_code'], canonicalDecimal(row['quantity'])])).toEqual([
          ['A-100', '2.5'],
          ['B-200', '2.5'],
        ]);
        expect(await sink.findOrder('ord_1')).toEqual({
          apiOrderId: 'ord_1',
          erpOrderNumber: first.erpOrderNumber,
          status: 'open',
        });

        const second = await sink.writeOrder(order('ord_2', ['A-100']));
        expect(second.erpOrderNumber).not.toBe(first.erpOrderNumber);
      });

      it('rolls back the order header when a line insert fails', async () => {
        const sink = new SqlOrderSink(driver, fixtureStatements.orders ?? fail(), 'erp');
        const bad = { ...order('ord_bad', ['A-100', 'B-200']) };
        const brokenLine = { ...(bad.lines[1] ?? fail()), quantity: null as unknown as string };
        await expect(
          sink.writeOrder({ ...bad, lines: [bad.lines[0] ?? fail(), brokenLine] }),
        ).rejects.toThrow();
        expect(await sink.findOrder('ord_bad')).toBeNull();
        expect(await count(`SELECT COUNT(*) AS n FROM t_order_line WHERE api_line_id LIKE 'ord_bad%'`)).toBe(
          0,
        );
      });

      it('applies updates and cancellations to a written order', async () => {
        const sink = new SqlOrderSink(driver, fixtureStatements.orders ?? fail(), 'erp');
        const written = await sink.writeOrder(order('ord_upd', ['A-100', 'B-200']));
        const updated = await sink.applyOrderUpdate({
          ...order('ord_upd', ['C-300']),
          deliveryDate: '2026-11-26',
        });
        expect(updated).toEqual({ status: 'updated', erpOrderNumber: written.erpOrderNumber });
        const lines = await driver.query('SELECT item_code FROM t_order_line WHERE erp_order_number = :n', {
          n: written.erpOrderNumber,
        });
        expect(lines.rows).toEqual([{ item_code: 'C-300' }]);
        expect(await sink.cancelOrder('ord_upd', 'buyer cancelled')).toEqual({ status: 'cancelled' });
        expect((await sink.findOrder('ord_upd'))?.status).toBe('cancelled');
        expect(await sink.cancelOrder('ord_unknown', 'x')).toEqual({ status: 'not_found' });
      });

      it('reads the catalog snapshot', async () => {
        await driver.query(`INSERT INTO t_items (sku, name, unit, pack_qty, vat_exempt, in_stock)
        VALUES ('CAT-1', 'Tomatoes', 'kg', '5.000', 0, 1), ('CAT-2', 'Flour', 'bag', NULL, 1, 0)`);
        await driver.query(`INSERT INTO t_prices (price_list, sku, price) VALUES ('PL1', 'CAT-1', '12.90')`);
        const catalog = new SqlCatalogSource(driver, fixtureStatements.catalog ?? fail(), 'erp');
        const products = (await catalog.readProducts()).products.filter((p) => p.sku.startsWith('CAT-'));
        expect(products.map((p) => [p.sku, p.name, p.unit, p.vatExempt])).toEqual([
          ['CAT-1', 'Tomatoes', 'kg', false],
          ['CAT-2', 'Flour', 'bag', true],
        ]);
        expect(canonicalDecimal(products[0]?.packageQuantity)).toBe('5');
        expect(products[1]?.packageQuantity).toBeNull();
        const prices = await catalog.readPrices();
        expect(prices.map((p) => [p.priceList, p.sku, canonicalDecimal(p.price)])).toEqual([
          ['PL1', 'CAT-1', '12.9'],
        ]);
        const availability = (await catalog.readAvailability()).filter((a) => a.sku.startsWith('CAT-'));
        expect(availability.map((a) => a.available)).toEqual([true, false]);
      });

      it('lists documents to send with their lines and marks them sent', async () => {
        await driver.query(`INSERT INTO t_docs (ref, doc_type, doc_number, doc_date, customer_number, before_vat, vat,
          with_vat, pdf_path, api_order_id)
        VALUES ('D1', 'invoice', 'INV-77', '2026-11-20', 'C1001', '100.00', '18.00', '118.00', '/tmp/inv77.pdf', 'ord_1')`);
        await driver.query(`INSERT INTO t_doc_lines (ref, line_no, item_code, description, quantity, unit_price, total)
        VALUES ('D1', 1, 'A-100', 'Tomatoes', '2.500', '40.00', '100.00')`);
        const source = new SqlDocumentSource(driver, fixtureStatements.documents ?? fail(), 'erp');
        const [document, ...rest] = await source.listPendingDocuments();
        expect(rest).toEqual([]);
        expect(document).toMatchObject({
          ref: 'D1',
          type: 'invoice',
          number: 'INV-77',
          date: '2026-11-20',
          customerNumber: 'C1001',
          attachmentPath: '/tmp/inv77.pdf',
          apiOrderIds: ['ord_1'],
        });
        expect(canonicalDecimal(document?.totalWithVat)).toBe('118');
        expect(document?.lines.map((line) => [line.lineNumber, line.itemCode])).toEqual([[1, 'A-100']]);
        await source.markDocumentSent('D1', 'doc_api_1');
        expect(await source.listPendingDocuments()).toEqual([]);
      });

      it('lists confirmations with their lines and marks them sent', async () => {
        const sink = new SqlOrderSink(driver, fixtureStatements.orders ?? fail(), 'erp');
        const written = await sink.writeOrder(order('ord_conf', ['A-100']));
        await driver.query(`INSERT INTO t_confirmations (ref, api_order_id, kind, reason, sent)
        VALUES ('CF1', 'ord_conf', 'partial', NULL, 0)`);
        await driver.query(`INSERT INTO t_confirmation_lines (ref, line_no, item_code, qty, substitute)
        VALUES ('CF1', 1, 'A-100', '1.250', 'A-101')`);
        const source = new SqlConfirmationSource(driver, fixtureStatements.confirmations ?? fail(), 'erp');
        const confirmations = await source.listPendingConfirmations();
        expect(confirmations).toHaveLength(1);
        expect(confirmations[0]).toMatchObject({
          ref: 'CF1',
          apiOrderId: 'ord_conf',
          erpOrderNumber: written.erpOrderNumber,
          kind: 'partial',
          reason: null,
        });
        expect(
          confirmations[0]?.lines.map((l) => [
            l.itemCode,
            canonicalDecimal(l.quantityConfirmed),
            l.substituteItemCode,
          ]),
        ).toEqual([['A-100', '1.25', 'A-101']]);
        await source.markConfirmationSent('CF1');
        expect(await source.listPendingConfirmations()).toEqual([]);
      });

      it('creates mirror tables and upserts rows by id', async () => {
        const mirror = new SqlMirrorSink(driver, 'mirror_');
        const spec: MirrorTableSpec = {
          name: 'orders',
          columns: [
            { name: 'status', type: 'text' },
            { name: 'total', type: 'decimal' },
            { name: 'deleted_at', type: 'timestamp' },
            { name: 'record', type: 'json' },
          ],
        };
        await mirror.ensureTable(spec);
        await mirror.ensureTable(spec);
        const row = (id: string, status: string, deletedAt: string | null) => ({
          id,
          status,
          total: '118.00',
          deleted_at: deletedAt,
          record: JSON.stringify({ id, status }),
        });
        expect(
          await mirror.upsertRows(spec, [row('o1', 'approved', null), row('o2', 'approved', null)]),
        ).toBe(2);
        await mirror.upsertRows(spec, [row('o1', 'cancelled', '2026-11-22T08:00:00+00:00')]);
        const { rows } = await driver.query('SELECT id, status, deleted_at FROM mirror_orders ORDER BY id');
        expect(rows.map((r) => [r['id'], r['status'], r['deleted_at'] === null])).toEqual([
          ['o1', 'cancelled', false],
          ['o2', 'approved', true],
        ]);
      });

      it('reads pending POS sales batches and marks them', async () => {
        await driver.query(`INSERT INTO t_pos_days (day_ref, state) VALUES ('2026-11-21/TLV01', 'closed')`);
        await driver.query(`INSERT INTO t_pos_z (day_ref, branch, z_no, closed_at, net_total, tips)
          VALUES ('2026-11-21/TLV01', 'TLV01', '881', '2026-11-21T23:10:00+02:00', '15230.50', '410.00')`);
        await driver.query(`INSERT INTO t_pos_items (day_ref, branch, z_no, line_no, item, qty, price, total)
          VALUES ('2026-11-21/TLV01', 'TLV01', '881', 1, 'SHAKSHUKA', '12', '54.00', '648.00')`);
        const sales = new SqlSalesSource(driver, fixtureStatements.sales ?? fail(), 'pos');
        const [batch, ...rest] = await sales.listPendingSales();
        expect(rest).toEqual([]);
        expect(batch?.ref).toBe('2026-11-21/TLV01');
        expect(
          batch?.zReports.map((z) => [z.branchCode, z.zNumber, canonicalDecimal(z.totalBeforeVat)]),
        ).toEqual([['TLV01', '881', '15230.5']]);
        expect(canonicalDecimal(batch?.zReports[0]?.fields['tips'])).toBe('410');
        expect(batch?.itemSales.map((i) => [i.lineNumber, i.itemCode, canonicalDecimal(i.total)])).toEqual([
          [1, 'SHAKSHUKA', '648'],
        ]);
        await sales.markSalesBatch('2026-11-21/TLV01', 'done');
        expect(await sales.listPendingSales()).toEqual([]);
      });

      it('asks the commit gate before each write-back, and a refusal leaves the record pending', async () => {
        await driver.query(`INSERT INTO t_docs (ref, doc_type, doc_number, doc_date, customer_number, before_vat, vat,
          with_vat, pdf_path, api_order_id)
        VALUES ('D9', 'invoice', 'INV-99', '2026-11-20', 'C1001', '100.00', '18.00', '118.00', '/tmp/inv99.pdf', NULL)`);
        await driver.query(`INSERT INTO t_doc_lines (ref, line_no, item_code, description, quantity, unit_price, total)
        VALUES ('D9', 1, 'A-100', 'Tomatoes', '2.500', '40.00', '100.00')`);
        await new SqlOrderSink(driver, fixtureStatements.orders ?? fail(), 'erp').writeOrder(
          order('ord_gate', ['A-100']),
        );
        await driver.query(`INSERT INTO t_confirmations (ref, api_order_id, kind, reason, sent)
        VALUES ('CF9', 'ord_gate', 'full', NULL, 0)`);
        await driver.query(`INSERT INTO t_pos_days (day_ref, state) VALUES ('2026-11-22/TLV01', 'closed')`);
        let asked = 0;
        const refusing = commitGated(driver, () => {
          asked += 1;
          return Promise.reject(new Error('this term is over'));
        });
        const documents = new SqlDocumentSource(refusing, fixtureStatements.documents ?? fail(), 'erp');
        const confirmations = new SqlConfirmationSource(
          refusing,
          fixtureStatements.confirmations ?? fail(),
          'erp',
        );
        const sales = new SqlSalesSource(refusing, fixtureStatements.sales ?? fail(), 'pos');
        await expect(documents.markDocumentSent('D9', 'doc_api_9')).rejects.toThrow('this term is over');
        await expect(confirmations.markConfirmationSent('CF9')).rejects.toThrow('this term is over');
        await expect(sales.markSalesBatch('2026-11-22/TLV01', 'done')).rejects.toThrow('this term is over');
        expect(asked).toBe(3);
        expect((await documents.listPendingDocuments()).map((d) => d.ref)).toContain('D9');
        expect((await confirmations.listPendingConfirmations()).map((c) => c.ref)).toContain('CF9');
        expect((await sales.listPendingSales()).map((b) => b.ref)).toContain('2026-11-22/TLV01');
      });
    },
  );
}

function fail(): never {
  throw new Error('fixture statement missing');
}
