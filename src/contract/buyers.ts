/** Linked buyers and invitations as the supplier sees them (part 2.4). */
import * as z from 'zod';
import { INVITATION_STATUSES, SUPPLIER_BUYER_STATUSES, WEEKDAYS } from './enums.js';
import { Id, Money, Timestamp, Uri } from './formats.js';
import type { SchemaKit } from './kit.js';

export function defineBuyers(k: SchemaKit) {
  const SupplierBuyerBranch = k.object({
    id: Id,
    name: z.string(),
    tax_id: z.string().nullable().optional(),
    address: z.string().nullable().optional(),
    delivery_days: z.array(k.enumOf(WEEKDAYS)).optional(),
  });
  const SupplierBuyer = k.object({
    id: Id,
    name: z.string(),
    tax_id: z.string().nullable().optional(),
    status: k.enumOf(SUPPLIER_BUYER_STATUSES),
    customer_number: z.string().nullable().optional(),
    erp_ref: z.string().nullable().optional(),
    branches: z.array(SupplierBuyerBranch).optional(),
    min_order: Money.nullable().optional(),
    payment_terms: z.string().nullable().optional(),
    price_list_id: z.string().nullable().optional(),
    created_at: Timestamp.optional(),
    updated_at: Timestamp,
  });
  const BuyerInvitation = k.object({
    id: Id,
    status: k.enumOf(INVITATION_STATUSES),
    onboarding_url: Uri,
    expires_at: Timestamp,
  });
  return { SupplierBuyerBranch, SupplierBuyer, BuyerInvitation };
}
