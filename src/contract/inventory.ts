/** Inventory counts (part 2.7; status values are a gap choice, see gaps.ts). */
import * as z from 'zod';
import { Id, Money, Quantity, Timestamp } from './formats.js';
import { INVENTORY_COUNT_STATUSES } from './gaps.js';
import type { SchemaKit } from './kit.js';

export function defineInventory(k: SchemaKit) {
  const InventoryCountLine = k.object({
    product_id: z.string(),
    sku: z.string(),
    name: z.string(),
    quantity: Quantity,
    unit: z.string(),
    unit_cost: Money,
    value: Money,
  });
  const InventoryCount = k.object({
    id: Id,
    branch_id: z.string(),
    counted_at: Timestamp,
    status: k.enumOf(INVENTORY_COUNT_STATUSES),
    total_value: Money,
    lines: z.array(InventoryCountLine).optional(),
    updated_at: Timestamp,
  });
  return { InventoryCountLine, InventoryCount };
}
