/** POS Z-reports and item sales (part 2.7). */
import * as z from 'zod';
import { Id, Money, NonNegativeInt, Quantity, Timestamp } from './formats.js';
import type { SchemaKit } from './kit.js';

export function defineSales(k: SchemaKit) {
  const ZReportFields = {
    branch_id: z.string(),
    z_number: z.string(),
    closed_at: Timestamp,
    total_before_vat: Money,
    description: z.string().nullable().optional(),
    orders_count: NonNegativeInt.optional(),
    dine_in_total: Money.optional(),
    dine_in_count: NonNegativeInt.optional(),
    take_away_total: Money.optional(),
    take_away_count: NonNegativeInt.optional(),
    tips: Money.optional(),
    cash_total: Money.optional(),
    card_total: Money.optional(),
    cheque_total: Money.optional(),
    discounts_total: Money.optional(),
  };
  const ZReport = k.object({
    id: Id,
    ...ZReportFields,
    created_at: Timestamp.optional(),
    updated_at: Timestamp.optional(),
  });
  /** A Z-report as sent in POST /sales/z-reports (without id, created_at, updated_at). */
  const ZReportInput = k.object(ZReportFields);
  const ItemSaleFields = {
    branch_id: z.string(),
    z_number: z.string(),
    value_date: Timestamp,
    item_code: z.string(),
    item_name: z.string(),
    quantity: Quantity,
    unit_price: Money,
    total: Money,
    line_number: NonNegativeInt.optional(),
    main_category: z.string().nullable().optional(),
    sub_category: z.string().nullable().optional(),
  };
  const ItemSale = k.object({ id: Id, ...ItemSaleFields, updated_at: Timestamp.optional() });
  /** An item sale as sent in POST /sales/item-sales (without id, updated_at). */
  const ItemSaleInput = k.object(ItemSaleFields);
  return { ZReport, ZReportInput, ItemSale, ItemSaleInput };
}
