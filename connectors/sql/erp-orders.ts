import type { OrderSink } from '../../src/connectors/capabilities.js';
import type {
  ErpOrder,
  ErpOrderLine,
  ErpOrderRef,
  OrderCancelResult,
  OrderUpdateResult,
  OrderWriteResult,
} from '../../src/connectors/orders.js';
import type { SqlDriver, SqlExecutor, SqlValue } from './driver.js';
import type { ErpStatements } from './erp-config.js';
import { RowReader } from '../../src/kit/row-reader.js';

type OrderStatements = NonNullable<ErpStatements['orders']>;

/**
 * Orders into the ERP through configured statements. The API order id is stored by the insert statements in the
 * ERP's own tables, and `find` looks it up inside the write transaction: a replayed order writes nothing.
 */
export class SqlOrderSink implements OrderSink {
  constructor(
    private readonly driver: SqlDriver,
    private readonly statements: OrderStatements,
    private readonly connectorName: string,
  ) {}

  findOrder(apiOrderId: string): Promise<ErpOrderRef | null> {
    return this.#find(this.driver, apiOrderId);
  }

  writeOrder(order: ErpOrder): Promise<OrderWriteResult> {
    return this.driver.transaction(async (tx) => {
      const existing = await this.#find(tx, order.apiOrderId);
      if (existing !== null) return { erpOrderNumber: existing.erpOrderNumber, status: 'already_written' };
      const inserted = await tx.query(this.statements.insert_header, headerParams(order));
      const returned = inserted.rows[0];
      const erpOrderNumber =
        returned !== undefined
          ? new RowReader(this.connectorName, 'orders.insert_header', returned).text('erp_order_number')
          : await this.#requireNumber(tx, order.apiOrderId);
      await this.#insertLines(tx, order, erpOrderNumber);
      return { erpOrderNumber, status: 'written' };
    });
  }

  applyOrderUpdate(order: ErpOrder): Promise<OrderUpdateResult> {
    const { update_header: updateHeader, delete_lines: deleteLines } = this.statements;
    return this.driver.transaction(async (tx) => {
      const existing = await this.#find(tx, order.apiOrderId);
      if (existing === null) return { status: 'not_found', erpOrderNumber: null };
      const params = { ...headerParams(order), erp_order_number: existing.erpOrderNumber };
      if (updateHeader !== undefined) await tx.query(updateHeader, params);
      if (deleteLines !== undefined) {
        await tx.query(deleteLines, params);
        await this.#insertLines(tx, order, existing.erpOrderNumber);
      }
      return { status: 'updated', erpOrderNumber: existing.erpOrderNumber };
    });
  }

  cancelOrder(apiOrderId: string, reason: string): Promise<OrderCancelResult> {
    const cancel = this.statements.cancel;
    return this.driver.transaction(async (tx) => {
      const existing = await this.#find(tx, apiOrderId);
      if (existing === null) return { status: 'not_found' };
      if (cancel !== undefined) {
        await tx.query(cancel, {
          api_order_id: apiOrderId,
          erp_order_number: existing.erpOrderNumber,
          reason,
        });
      }
      return { status: 'cancelled' };
    });
  }

  async #insertLines(tx: SqlExecutor, order: ErpOrder, erpOrderNumber: string): Promise<void> {
    const header = { ...headerParams(order), erp_order_number: erpOrderNumber };
    for (const line of order.lines) {
      await tx.query(this.statements.insert_line, { ...header, ...lineParams(line) });
    }
  }

  async #find(executor: SqlExecutor, apiOrderId: string): Promise<ErpOrderRef | null> {
    const { rows } = await executor.query(this.statements.find, { api_order_id: apiOrderId });
    const row = rows[0];
    if (row === undefined) return null;
    const reader = new RowReader(this.connectorName, 'orders.find', row);
    return {
      apiOrderId,
      erpOrderNumber: reader.text('erp_order_number'),
      status: reader.optionalText('status'),
    };
  }

  async #requireNumber(tx: SqlExecutor, apiOrderId: string): Promise<string> {
    const found = await this.#find(tx, apiOrderId);
    if (found === null) {
      throw new Error(
        `orders.insert_header returned no erp_order_number and orders.find did not find the order afterwards; make insert_header store :api_order_id`,
      );
    }
    return found.erpOrderNumber;
  }
}

export function headerParams(order: ErpOrder): Record<string, SqlValue> {
  return {
    api_order_id: order.apiOrderId,
    order_number: order.orderNumber,
    customer_number: order.customerNumber,
    ship_to: order.shipTo,
    purchase_type: order.purchaseType,
    order_date: order.orderDate,
    delivery_date: order.deliveryDate,
    window_from: order.windowFrom,
    window_to: order.windowTo,
    currency: order.currency,
    total_before_vat: order.totalBeforeVat,
    vat: order.vat,
    total_with_vat: order.totalWithVat,
    notes: order.notes,
    line_count: order.lines.length,
  };
}

function lineParams(line: ErpOrderLine): Record<string, SqlValue> {
  return {
    line_number: line.lineNumber,
    api_line_id: line.apiLineId,
    item_code: line.itemCode,
    description: line.description,
    quantity: line.quantity,
    unit: line.unit,
    unit_price: line.unitPrice,
    discount_pct: line.discountPct,
    line_total: line.total,
    vat_exempt: line.vatExempt,
    line_notes: line.notes,
  };
}
