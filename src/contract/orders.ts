/** Orders (part 2.5). */
import * as z from 'zod';
import { CURRENCIES, ORDER_STATUSES } from './enums.js';
import { DateString, Id, Money, Quantity, Timestamp } from './formats.js';
import type { SchemaKit } from './kit.js';
import type { SharedShapes } from './shared.js';

export function defineOrders(k: SchemaKit, s: SharedShapes) {
  const OrderLine = k.object({
    id: Id,
    sku: z.string(),
    name: z.string(),
    quantity: Quantity,
    unit_price: Money,
    total: Money,
    unit: z.string().optional(),
    package_quantity: Quantity.optional(),
    discount_pct: z.string().nullable().optional(),
    vat_exempt: z.boolean().optional(),
    quantity_confirmed: Quantity.nullable().optional(),
    substitute_sku: z.string().nullable().optional(),
    notes: z.string().nullable().optional(),
    product_group: z.string().nullable().optional(),
    expense_account: z.string().nullable().optional(),
  });
  const OrderBuyer = k.object({
    id: Id,
    name: z.string(),
    customer_number: z.string().nullable().optional(),
  });
  const Order = k.object({
    id: Id,
    number: z.string(),
    status: k.enumOf(ORDER_STATUSES),
    buyer: OrderBuyer,
    supplier: s.PartyRef,
    branch: s.BranchRef.optional(),
    purchase_type: z.string().nullable().optional(),
    sent_at: Timestamp.optional(),
    delivery_date: DateString,
    delivery_window: s.TimeWindow.optional(),
    currency: k.enumOf(CURRENCIES),
    totals: s.Totals,
    lines: z.array(OrderLine).optional(),
    notes: z.string().nullable().optional(),
    external_ref: z.string().nullable().optional(),
    acknowledged_at: Timestamp.nullable().optional(),
    related_document_ids: z.array(z.string()).optional(),
    files: z.array(s.FileRef).optional(),
    history: z.array(s.HistoryEntry).optional(),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: Timestamp.nullable().optional(),
  });
  return { OrderLine, OrderBuyer, Order };
}
