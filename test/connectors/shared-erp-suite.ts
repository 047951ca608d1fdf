import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../src/connector-contract/connector.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import { order } from './odata/fixture.js';

/** What the suite reads back from the ERP's own side, not through the connector. */
export interface ErpSide {
  /** The orders holding an API order id: their ERP number, line count and whether cancelled. */
  ordersFor(apiOrderId: string): Array<{ erpOrderNumber: string; lines: number; cancelled: boolean }>;
  /** How many orders the ERP holds in all. */
  orderCount(): number;
}

export interface ErpSuiteTarget {
  open(): Promise<{ connector: Connector; erp: ErpSide; close(): Promise<void>; failures(): string[] }>;
  /** The seeded ERP's master data and documents, as the capabilities should return them. */
  readonly expected: {
    readonly skus: readonly string[];
    readonly prices: number;
    readonly availableSkus: readonly string[];
    readonly customers: readonly string[];
    readonly documents: ReadonlyArray<{ type: string; customerNumber: string; lines: number }>;
  };
}

const AWKWARD_IDS = ["ord_o'brien", "x' or U_ApiOrderId ne 'y", 'ord_%20&$filter=1#/?', 'הזמנה_1', "''"];

/**
 * The ERP capabilities every connector offering them must honour, read back from the ERP's own side: an order
 * written once with all its lines whatever the retries, found by its API order id however that id is spelt,
 * cancelled once; documents listed until marked sent; catalog and customers as the ERP holds them.
 */
export function sharedErpSuite(title: string, target: ErpSuiteTarget): void {
  describe(title, () => {
    let connector: Connector;
    let erp: ErpSide;
    let opened: Awaited<ReturnType<ErpSuiteTarget['open']>>;

    beforeAll(async () => {
      opened = await target.open();
      ({ connector, erp } = opened);
    });
    afterAll(async () => {
      await opened.close();
    });

    const sink = () => {
      const orderSink = connector.capabilities.orderSink;
      if (orderSink === undefined) throw new Error('no orderSink');
      return orderSink;
    };

    it('writes an order with all its lines once; a repeat writes nothing and returns the same number', async () => {
      const first = await sink().writeOrder(order('ord_once'));
      const second = await sink().writeOrder(order('ord_once'));
      expect(first.status).toBe('written');
      expect(second).toEqual({ erpOrderNumber: first.erpOrderNumber, status: 'already_written' });
      expect(erp.ordersFor('ord_once')).toEqual([
        { erpOrderNumber: first.erpOrderNumber, lines: 2, cancelled: false },
      ]);
      expect(await sink().findOrder('ord_once')).toMatchObject({ erpOrderNumber: first.erpOrderNumber });
      expect(await sink().findOrder('ord_never')).toBeNull();
    });

    it('finds each order by its own API order id, whatever characters the id has', async () => {
      const numbers = new Map<string, string>();
      for (const id of AWKWARD_IDS)
        numbers.set(id, (await sink().writeOrder(order(id, ['A100']))).erpOrderNumber);
      for (const id of AWKWARD_IDS) {
        expect(await sink().findOrder(id)).toMatchObject({ erpOrderNumber: numbers.get(id) });
        expect(erp.ordersFor(id)).toHaveLength(1);
      }
      expect(new Set(numbers.values()).size).toBe(AWKWARD_IDS.length);
    });

    it('refuses an order the ERP cannot take, not retryable, and leaves nothing half-written', async () => {
      const before = erp.orderCount();
      const error = await sink()
        .writeOrder(order('ord_bad_item', ['A100', 'NO-SUCH-ITEM']))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConnectorError);
      expect((error as ConnectorError).retryable).toBe(false);
      expect(erp.orderCount()).toBe(before);
      expect(await sink().findOrder('ord_bad_item')).toBeNull();
    });

    it('applies a header change; refuses a change of lines with the reason, leaving the ERP as it was', async () => {
      const written = await sink().writeOrder(order('ord_update'));
      const later = { ...order('ord_update'), deliveryDate: '2026-11-30', notes: 'ring twice' };
      expect(await sink().applyOrderUpdate(later)).toEqual({
        status: 'updated',
        erpOrderNumber: written.erpOrderNumber,
      });
      const fewerLines = { ...later, lines: later.lines.slice(0, 1) };
      const refused = await sink()
        .applyOrderUpdate(fewerLines)
        .catch((caught: unknown) => caught);
      expect(refused).toMatchObject({ retryable: false });
      expect(String((refused as Error).message)).toContain(`written to the ERP as ${written.erpOrderNumber}`);
      expect(erp.ordersFor('ord_update')).toMatchObject([{ lines: 2 }]);
      expect(await sink().applyOrderUpdate(order('ord_not_there'))).toEqual({
        status: 'not_found',
        erpOrderNumber: null,
      });
    });

    it('cancels an order once; a repeat is still cancelled; an unknown order is not found', async () => {
      await sink().writeOrder(order('ord_cancel'));
      expect(await sink().cancelOrder('ord_cancel', 'buyer cancelled')).toEqual({ status: 'cancelled' });
      expect(await sink().cancelOrder('ord_cancel', 'buyer cancelled')).toEqual({ status: 'cancelled' });
      expect(erp.ordersFor('ord_cancel')).toMatchObject([{ cancelled: true }]);
      expect(await sink().cancelOrder('ord_unknown', 'x')).toEqual({ status: 'not_found' });
    });

    it('lists pending documents with their lines until each is marked sent', async () => {
      const source = connector.capabilities.documentSource;
      if (source === undefined) throw new Error('no documentSource');
      const pending = await source.listPendingDocuments();
      expect(
        pending.map((doc) => ({
          type: doc.type,
          customerNumber: doc.customerNumber,
          lines: doc.lines.length,
        })),
      ).toEqual(target.expected.documents);
      for (const doc of pending) {
        expect(doc.totalWithVat).toMatch(/^\d+(\.\d+)?$/);
        expect(doc.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
      const [first, ...rest] = pending;
      if (first === undefined) throw new Error('no pending documents');
      await source.markDocumentSent(first.ref, 'doc_api_1');
      await source.markDocumentSent(first.ref, 'doc_api_1');
      expect((await source.listPendingDocuments()).map((doc) => doc.ref)).toEqual(rest.map((doc) => doc.ref));
    });

    it('reads the catalog and the customers the ERP holds', async () => {
      const catalog = connector.capabilities.catalogSource;
      const customers = connector.capabilities.customerDirectory;
      if (catalog === undefined || customers === undefined)
        throw new Error('no catalogSource or customerDirectory');
      expect((await catalog.readProducts()).products.map((product) => product.sku)).toEqual(
        target.expected.skus,
      );
      expect(await catalog.readPrices()).toHaveLength(target.expected.prices);
      const availability = await catalog.readAvailability();
      expect(availability.filter((row) => row.available).map((row) => row.sku)).toEqual(
        target.expected.availableSkus,
      );
      expect((await customers.listCustomers()).map((customer) => customer.customerNumber)).toEqual(
        target.expected.customers,
      );
    });

    it('sent nothing an OData parser we did not write refuses', () => {
      expect(opened.failures()).toEqual([]);
    });
  });
}
