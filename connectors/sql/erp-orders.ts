import type { OrderSink } from '../../src/connector-contract/capabilities.js';
import type {
  ErpOrder,
  ErpOrderRef,
  OrderCancelResult,
  OrderUpdateResult,
  OrderWriteResult,
} from '../../src/connector-contract/orders.js';
import type { SqlDriver, SqlExecutor, SqlValue } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from './erp-config.js';
import { closestMatch } from '../../src/config/did-you-mean.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import { compileNamedParams } from '../../src/kit/sql/named-params.js';
import {
  ORDER_HEADER_PARAMS,
  ORDER_LINE_PARAMS,
  orderHeaderParams,
  orderLineParams,
} from '../../src/kit/order-params.js';
import { RowReader } from '../../src/kit/row-reader.js';
import { bound, statementContract, type StatementContract } from './statement-contract.js';

type OrderStatements = NonNullable<ErpStatements['orders']>;

/** What each order statement is given and what is read from it (README, "Statements"). */
export const orderContracts = {
  find: statementContract('orders.find', {
    params: ['api_order_id'],
    columns: ['erp_order_number'],
    optionalColumns: ['status'],
  }),
  insert_header: statementContract('orders.insert_header', {
    params: ORDER_HEADER_PARAMS,
    columns: ['erp_order_number'],
    resultOptional: true,
  }),
  insert_line: statementContract('orders.insert_line', {
    params: [...ORDER_HEADER_PARAMS, 'erp_order_number', ...ORDER_LINE_PARAMS],
  }),
  update_header: statementContract('orders.update_header', {
    params: [...ORDER_HEADER_PARAMS, 'erp_order_number'],
  }),
  delete_lines: statementContract('orders.delete_lines', {
    params: [...ORDER_HEADER_PARAMS, 'erp_order_number'],
  }),
  cancel: statementContract('orders.cancel', { params: ['api_order_id', 'erp_order_number', 'reason'] }),
} satisfies Record<keyof OrderStatements, StatementContract>;

/**
 * Orders into the ERP through configured statements. The API order id is stored by the insert statements in the
 * ERP's own tables, and `find` looks it up inside the write transaction: a replayed order writes nothing.
 */
export class SqlOrderSink implements OrderSink {
  /** Statements the database has already prepared once in this process (dry runs prepare each only once). */
  readonly #prepared = new Set<string>();

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
      const inserted = await tx.query(
        this.statements.insert_header,
        bound(orderContracts.insert_header, orderHeaderParams(order)),
      );
      const returned = inserted.rows[0];
      const erpOrderNumber =
        returned !== undefined
          ? new RowReader(this.connectorName, orderContracts.insert_header, returned).text('erp_order_number')
          : await this.#requireNumber(tx, order.apiOrderId);
      await this.#insertLines(tx, order, erpOrderNumber);
      return { erpOrderNumber, status: 'written' };
    });
  }

  /**
   * writeOrder without the writes: `find` runs for real, and each insert is prepared on the database and given
   * this order's parameters exactly as writeOrder binds them, without being executed.
   */
  async checkOrderWrite(order: ErpOrder): Promise<void> {
    await this.#find(this.driver, order.apiOrderId);
    const header = orderHeaderParams(order);
    await this.#checkBinding(
      orderContracts.insert_header,
      this.statements.insert_header,
      bound(orderContracts.insert_header, header),
    );
    for (const line of order.lines) {
      await this.#checkBinding(
        orderContracts.insert_line,
        this.statements.insert_line,
        // The ERP number is only known once the header is written; any value binds the same way.
        bound(orderContracts.insert_line, { ...header, erp_order_number: '', ...orderLineParams(line) }),
      );
    }
  }

  async #checkBinding(
    contract: StatementContract,
    sql: string,
    params: Readonly<Record<string, SqlValue>>,
  ): Promise<void> {
    const fail = (message: string, cause?: unknown) =>
      new ConnectorError('connector_statement_failed', `statement ${contract.key}: ${message}`, {
        connector: this.connectorName,
        retryable: false,
        ...(cause === undefined ? {} : { cause }),
      });
    if (!this.#prepared.has(sql)) {
      try {
        await this.driver.describe(sql);
      } catch (error) {
        if (error instanceof ConnectorError && error.retryable) throw error;
        throw fail(error instanceof Error ? error.message : String(error), error);
      }
      this.#prepared.add(sql);
    }
    const unbound = compileNamedParams(sql, 'question').names.find((name) => params[name] === undefined);
    if (unbound !== undefined) {
      const meant = closestMatch(unbound, Object.keys(params));
      throw fail(
        `parameter :${unbound} has no value${meant === undefined ? '' : `; did you mean :${meant}?`}`,
      );
    }
  }

  applyOrderUpdate(order: ErpOrder): Promise<OrderUpdateResult> {
    const { update_header: updateHeader, delete_lines: deleteLines } = this.statements;
    return this.driver.transaction(async (tx) => {
      const existing = await this.#find(tx, order.apiOrderId);
      if (existing === null) return { status: 'not_found', erpOrderNumber: null };
      const params = { ...orderHeaderParams(order), erp_order_number: existing.erpOrderNumber };
      if (updateHeader !== undefined)
        await tx.query(updateHeader, bound(orderContracts.update_header, params));
      if (deleteLines !== undefined) {
        await tx.query(deleteLines, bound(orderContracts.delete_lines, params));
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
        await tx.query(
          cancel,
          bound(orderContracts.cancel, {
            api_order_id: apiOrderId,
            erp_order_number: existing.erpOrderNumber,
            reason,
          }),
        );
      }
      return { status: 'cancelled' };
    });
  }

  async #insertLines(tx: SqlExecutor, order: ErpOrder, erpOrderNumber: string): Promise<void> {
    const header = { ...orderHeaderParams(order), erp_order_number: erpOrderNumber };
    for (const line of order.lines) {
      await tx.query(
        this.statements.insert_line,
        bound(orderContracts.insert_line, { ...header, ...orderLineParams(line) }),
      );
    }
  }

  async #find(executor: SqlExecutor, apiOrderId: string): Promise<ErpOrderRef | null> {
    const { rows } = await executor.query(
      this.statements.find,
      bound(orderContracts.find, { api_order_id: apiOrderId }),
    );
    const row = rows[0];
    if (row === undefined) return null;
    const reader = new RowReader(this.connectorName, orderContracts.find, row);
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
