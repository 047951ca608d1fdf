import { createHash } from 'node:crypto';
import path from 'node:path';
import iconv from 'iconv-lite';
import type { OrderSink } from '../../src/connector-contract/capabilities.js';
import type {
  ErpOrder,
  ErpOrderRef,
  OrderCancelResult,
  OrderUpdateResult,
  OrderWriteResult,
} from '../../src/connector-contract/orders.js';
import type { CsvErpConfig } from './config.js';
import { formatCsv } from '../../src/kit/csv.js';
import { deliverOnce, wasDelivered } from './files.js';

const COLUMNS = [
  'change',
  'api_order_id',
  'order_number',
  'customer_number',
  'ship_to',
  'purchase_type',
  'order_date',
  'delivery_date',
  'window_from',
  'window_to',
  'currency',
  'total_before_vat',
  'vat',
  'total_with_vat',
  'notes',
  'line_number',
  'api_line_id',
  'item_code',
  'description',
  'quantity',
  'unit',
  'unit_price',
  'discount_pct',
  'line_total',
  'vat_exempt',
  'line_notes',
] as const;

/**
 * Orders as files in `<out_dir>/orders/`: `<api order id>.csv` for a new order, `<id>.update-<hash>.csv` for a
 * change and `<id>.cancel.csv` for a cancellation, one row per line. Each file is delivered exactly once (see
 * deliverOnce). A file-exchange ERP assigns its own number later, so the acknowledgement carries the buyer's
 * order number; the ERP's number can come back in a confirmation file.
 */
export class CsvOrderSink implements OrderSink {
  readonly #dir: string;

  constructor(
    private readonly config: CsvErpConfig,
    outDir: string,
  ) {
    this.#dir = path.join(outDir, 'orders');
  }

  async writeOrder(order: ErpOrder): Promise<OrderWriteResult> {
    const written = await deliverOnce(this.#dir, newOrderFile(order.apiOrderId), this.#encode(order, 'new'));
    return { erpOrderNumber: order.orderNumber, status: written ? 'written' : 'already_written' };
  }

  async applyOrderUpdate(order: ErpOrder): Promise<OrderUpdateResult> {
    if (!wasDelivered(this.#dir, newOrderFile(order.apiOrderId)))
      return { status: 'not_found', erpOrderNumber: null };
    const content = this.#encode(order, 'update');
    const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
    await deliverOnce(this.#dir, `${safeName(order.apiOrderId)}.update-${hash}.csv`, content);
    return { status: 'updated', erpOrderNumber: order.orderNumber };
  }

  async cancelOrder(apiOrderId: string, reason: string): Promise<OrderCancelResult> {
    if (!wasDelivered(this.#dir, newOrderFile(apiOrderId))) return { status: 'not_found' };
    const header = ['change', 'api_order_id', 'notes'];
    const content = formatCsv([header, ['cancel', apiOrderId, reason]], this.config.separator);
    await deliverOnce(
      this.#dir,
      `${safeName(apiOrderId)}.cancel.csv`,
      iconv.encode(content, this.config.encoding),
    );
    return { status: 'cancelled' };
  }

  findOrder(apiOrderId: string): Promise<ErpOrderRef | null> {
    // The number is not known from the file alone; callers use it to decide "written or not".
    return Promise.resolve(
      wasDelivered(this.#dir, newOrderFile(apiOrderId))
        ? { apiOrderId, erpOrderNumber: apiOrderId, status: null }
        : null,
    );
  }

  #encode(order: ErpOrder, change: 'new' | 'update'): Buffer {
    const header = [
      change,
      order.apiOrderId,
      order.orderNumber,
      order.customerNumber,
      order.shipTo,
      order.purchaseType,
      order.orderDate,
      order.deliveryDate,
      order.windowFrom,
      order.windowTo,
      order.currency,
      order.totalBeforeVat,
      order.vat,
      order.totalWithVat,
      order.notes,
    ];
    const rows = order.lines.map((line) => [
      ...header,
      String(line.lineNumber),
      line.apiLineId,
      line.itemCode,
      line.description,
      line.quantity,
      line.unit,
      line.unitPrice,
      line.discountPct,
      line.total,
      line.vatExempt ? '1' : '0',
      line.notes,
    ]);
    return iconv.encode(formatCsv([[...COLUMNS], ...rows], this.config.separator), this.config.encoding);
  }
}

function newOrderFile(apiOrderId: string): string {
  return `${safeName(apiOrderId)}.csv`;
}

/** API ids are opaque strings: keep file names portable. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}
