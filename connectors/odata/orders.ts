import type { OrderSink } from '../../src/connector-contract/capabilities.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type {
  ErpOrder,
  ErpOrderRef,
  OrderCancelResult,
  OrderUpdateResult,
  OrderWriteResult,
} from '../../src/connector-contract/orders.js';
import type { OdataEntities } from './config.js';
import { bindTemplate, keyPredicate, type ODataValue } from './literals.js';
import { orderHeaderParams, orderLineParams } from '../../src/kit/order-params.js';
import { undefinedCurrencyFix } from './currency-check.js';
import { paramOf, writeEntity } from './mapping.js';
import { queryString, type Entity, type OdataService } from './service.js';

type OrdersConfig = NonNullable<OdataEntities['orders']>;

/**
 * Orders into the ERP through its OData API. The write is not in supply-sync's transaction, so it is made safe to
 * repeat by finding first: the API order id is written into the order (a user-defined field), `find_filter` looks
 * it up before every create, and a create whose answer was lost (a 5xx or timeout after the ERP committed) is
 * recognised by looking again before failing.
 */
export class OdataOrderSink implements OrderSink {
  constructor(
    private readonly service: OdataService,
    private readonly config: OrdersConfig,
    private readonly connector: string,
    /** The company's time zone, for datetime values (company_timezone). */
    private readonly timeZone: string | undefined = undefined,
    /** API currency code -> the company's own code for it (currencies). */
    private readonly currencies: Readonly<Record<string, string>> = {},
    /** The company's currencies, read to explain a refused order in a currency the company does not define. */
    private readonly companyCurrencies?: OdataEntities['company_currencies'],
  ) {}

  async findOrder(apiOrderId: string): Promise<ErpOrderRef | null> {
    const entity = await this.#find(apiOrderId);
    return entity === null ? null : this.#ref(apiOrderId, entity);
  }

  async writeOrder(order: ErpOrder): Promise<OrderWriteResult> {
    const existing = await this.#find(order.apiOrderId);
    if (existing !== null) return { erpOrderNumber: this.#number(existing), status: 'already_written' };
    try {
      return { erpOrderNumber: this.#number(await this.#create(order)), status: 'written' };
    } catch (error) {
      if (!(error instanceof ConnectorError)) throw error;
      if (!error.retryable) throw await this.#explained(error, order);
      // The request may have reached the ERP before the answer was lost.
      const created = await this.#find(order.apiOrderId).catch(() => null);
      if (created === null) throw error;
      return { erpOrderNumber: this.#number(created), status: 'written' };
    }
  }

  /** A refused order whose currency the company does not define: the refusal with the key that fixes it. */
  async #explained(error: ConnectorError, order: ErpOrder): Promise<ConnectorError> {
    if (this.companyCurrencies === undefined) return error;
    const code = this.currencies[order.currency] ?? order.currency;
    const configKey = `connectors.${this.connector}`;
    const fix = await undefinedCurrencyFix(
      this.service,
      this.companyCurrencies,
      order.currency,
      code,
      configKey,
    );
    if (fix === undefined) return error;
    return new ConnectorError(error.code, `${error.message}; ${fix}`, {
      connector: this.connector,
      retryable: false,
      cause: error,
    });
  }

  async checkOrderWrite(order: ErpOrder): Promise<void> {
    await this.#find(order.apiOrderId);
    this.#bodies(order);
  }

  /**
   * Header fields only: the ERPs' own rules for changing the lines of an entered order differ too much. An update
   * that changes the lines (items or quantities) is refused with the reason, so it becomes a dead letter for
   * someone to apply in the ERP, rather than reported as applied.
   */
  async applyOrderUpdate(order: ErpOrder): Promise<OrderUpdateResult> {
    const existing = await this.#find(order.apiOrderId);
    if (existing === null) return { status: 'not_found', erpOrderNumber: null };
    const number = this.#number(existing);
    if (!sameLines(await this.#currentLines(existing), this.#bodies(order).lines, this.#lineIdentity())) {
      throw new ConnectorError(
        'connector_input_invalid',
        `orders.update: the lines of the order changed after it was written to the ERP as ${number}; ` +
          'the odata connector changes header fields only: change the lines in the ERP, then discard this letter',
        { connector: this.connector, retryable: false },
      );
    }
    const header = this.#header(order);
    delete header[this.#apiIdProperty() ?? ''];
    await this.service.patch(this.#path(existing), header, 'orders.update');
    return { status: 'updated', erpOrderNumber: number };
  }

  async #currentLines(existing: Entity): Promise<Entity[]> {
    const { lines_property: lines, expand_lines: expand } = this.config;
    const query = queryString(expand ? { expand: lines } : { select: [lines] });
    const response = await this.service.http.send('GET', `${this.#path(existing)}${query}`, {
      what: 'orders.update',
    });
    const value = (response.body as Entity | null)?.[lines];
    return Array.isArray(value) ? (value as Entity[]) : [];
  }

  /** The line properties written from :item_code and :quantity: what makes two lines the same line. */
  #lineIdentity(): string[] {
    return Object.entries(this.config.line)
      .filter(([, value]) => ['item_code', 'quantity'].includes(paramOf(value) ?? ''))
      .map(([property]) => property);
  }

  async cancelOrder(apiOrderId: string, reason: string): Promise<OrderCancelResult> {
    const existing = await this.#find(apiOrderId);
    if (existing === null) return { status: 'not_found' };
    const { cancel, cancelled } = this.config;
    if (cancel === undefined) return { status: 'cancelled' };
    if (cancelled !== undefined && existing[cancelled.property] === cancelled.value)
      return { status: 'cancelled' };
    if ('action' in cancel)
      await this.service.action(`${this.#path(existing)}/${cancel.action}`, 'orders.cancel');
    else {
      const params = { api_order_id: apiOrderId, erp_order_number: this.#number(existing), reason };
      await this.service.patch(
        this.#path(existing),
        writeEntity(cancel.patch, params, 'orders.cancel.patch', this.timeZone),
        'orders.cancel',
      );
    }
    return { status: 'cancelled' };
  }

  async #find(apiOrderId: string): Promise<Entity | null> {
    const { entity_set: entitySet, key, erp_number: number, status, cancelled } = this.config;
    const filter = bindTemplate(this.config.find_filter, { api_order_id: apiOrderId }, 'orders.find_filter');
    const select = [
      ...new Set([
        ...key,
        number,
        ...(status === undefined ? [] : [status]),
        ...(cancelled === undefined ? [] : [cancelled.property]),
      ]),
    ];
    const found = await this.service.list(entitySet, { filter, select, orderBy: key }, 'orders.find');
    if (found.length > 1) {
      throw new ConnectorError(
        'connector_result_invalid',
        `orders.find_filter matched ${found.length} orders for one API order id; it must match one at most`,
        { connector: this.connector, retryable: false },
      );
    }
    return found[0] ?? null;
  }

  #create(order: ErpOrder): Promise<Entity> {
    const { header, lines } = this.#bodies(order);
    const { entity_set: entitySet, lines_property: linesProperty } = this.config;
    if (this.config.write === 'deep_insert') {
      return this.service.create(entitySet, { ...header, [linesProperty]: lines }, 'orders.create');
    }
    return this.service.changeSet(
      [
        { path: entitySet, entity: header },
        ...lines.map((line) => ({ path: `$1/${linesProperty}`, entity: line })),
      ],
      'orders.create',
    );
  }

  #bodies(order: ErpOrder): { header: Entity; lines: Entity[] } {
    const header = this.#header(order);
    const params = this.#headerParams(order);
    const lines = order.lines.map((line) =>
      writeEntity(this.config.line, { ...params, ...orderLineParams(line) }, 'orders.line', this.timeZone),
    );
    return { header, lines };
  }

  #header(order: ErpOrder): Entity {
    return writeEntity(this.config.header, this.#headerParams(order), 'orders.header', this.timeZone);
  }

  /** The order's values, its currency as the company codes it (a company may define ILS as NIS). */
  #headerParams(order: ErpOrder): ReturnType<typeof orderHeaderParams> {
    const params = orderHeaderParams(order);
    return { ...params, currency: this.currencies[order.currency] ?? order.currency };
  }

  #apiIdProperty(): string | undefined {
    return Object.entries(this.config.header).find(([, value]) => paramOf(value) === 'api_order_id')?.[0];
  }

  #path(entity: Entity): string {
    return `${this.config.entity_set}${keyPredicate(this.config.key, entity as Record<string, ODataValue>)}`;
  }

  #number(entity: Entity): string {
    const value = entity[this.config.erp_number];
    if (value === null || value === undefined) {
      throw new ConnectorError(
        'connector_result_invalid',
        `orders.erp_number: the ERP returned no ${this.config.erp_number}`,
        {
          connector: this.connector,
          retryable: false,
        },
      );
    }
    return String(value as string | number);
  }

  #ref(apiOrderId: string, entity: Entity): ErpOrderRef {
    const status = this.config.status === undefined ? null : entity[this.config.status];
    return {
      apiOrderId,
      erpOrderNumber: this.#number(entity),
      status: status === null || status === undefined ? null : String(status as string),
    };
  }
}

/** Whether the ERP's lines and the order's lines have the same items and quantities, in order. */
function sameLines(
  current: readonly Entity[],
  wanted: readonly Entity[],
  identity: readonly string[],
): boolean {
  return (
    current.length === wanted.length &&
    wanted.every((line, index) => identity.every((property) => current[index]?.[property] === line[property]))
  );
}
