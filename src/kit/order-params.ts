import type { ErpOrder, ErpOrderLine } from '../connector-contract/orders.js';

/**
 * The values of an order that an ERP mapping names as `:param` (the sql connector's statements, the odata
 * connector's property mappings): one list, so a mapping written for one connector means the same in the other.
 */
export const ORDER_HEADER_PARAMS = [
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
  'line_count',
] as const;
export const ORDER_LINE_PARAMS = [
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
export type OrderHeaderParam = (typeof ORDER_HEADER_PARAMS)[number];
export type OrderLineParam = (typeof ORDER_LINE_PARAMS)[number];
export type OrderParamValue = string | number | boolean | null;

export function orderHeaderParams(order: ErpOrder): Record<OrderHeaderParam, OrderParamValue> {
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

export function orderLineParams(line: ErpOrderLine): Record<OrderLineParam, OrderParamValue> {
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
