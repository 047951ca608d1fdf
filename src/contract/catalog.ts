/** Supplier catalog: products, price entries, price lists (part 2.4). */
import * as z from 'zod';
import { CURRENCIES } from './enums.js';
import { DateString, Id, Money, Quantity, Timestamp } from './formats.js';
import { type SchemaKit, itemCodeParams } from './kit.js';
import { LIMITS } from './limits.js';
import { compareMoney } from '../shared/decimal.js';

/** Price > 0.00, checked exactly (never through a float). */
export const PositiveMoney = Money.refine((value) => compareMoney(value, '0.00') > 0, {
  message: 'must be greater than 0.00',
  ...itemCodeParams('must_be_positive'),
});

export function defineCatalog(k: SchemaKit) {
  const Product = k.object({
    sku: z.string().min(1).max(LIMITS.length.sku),
    name: z.string().min(1).max(LIMITS.length.productName),
    unit: z.string(),
    package_quantity: Quantity.optional(),
    category: z.string().nullable().optional(),
    barcode: z.string().nullable().optional(),
    vat_exempt: z.boolean().optional(),
    available: z.boolean().optional(),
    image_file_id: z.string().nullable().optional(),
    external_ref: z.string().nullable().optional(),
    available_until: DateString.nullable().optional(),
    created_at: Timestamp.optional(),
    updated_at: Timestamp,
    deleted_at: Timestamp.nullable().optional(),
  });
  const PriceEntry = k.object({
    sku: z.string().min(1).max(LIMITS.length.sku),
    price: PositiveMoney,
    min_quantity: Quantity.optional(),
    valid_from: DateString.optional(),
  });
  const PriceList = k.object({
    id: Id,
    name: z.string(),
    currency: k.enumOf(CURRENCIES).optional(),
    buyer_ids: z.array(z.string()).optional(),
    updated_at: Timestamp.optional(),
  });
  return { Product, PriceEntry, PriceList };
}
