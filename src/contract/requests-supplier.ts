/** Request bodies of the supplier endpoints that the contract shows (part 4.2-4.5). Gap bodies: gaps.ts. */
import * as z from 'zod';
import { DateString, Email, Id, Quantity } from './formats.js';
import type { SchemaKit } from './kit.js';
import { LIMITS } from './limits.js';

export function defineSupplierRequests<P extends z.ZodType>(k: SchemaKit, PriceEntry: P) {
  /** PATCH /supplier/buyers/{buyer_id} */
  const PatchSupplierBuyerRequest = k.object({
    customer_number: z.string().optional(),
    erp_ref: z.string().optional(),
  });
  /** POST /supplier/buyer-invitations */
  const CreateBuyerInvitationRequest = k.object({
    business_name: z.string().min(1),
    tax_id: z.string().optional(),
    contact_name: z.string().optional(),
    contact_email: Email,
    contact_phone: z.string().optional(),
    customer_number: z.string().optional(),
    price_list_id: z.string().optional(),
  });
  const productFields = {
    name: z.string().min(1).max(LIMITS.length.productName),
    unit: z.string().min(1),
    package_quantity: Quantity.optional(),
    category: z.string().nullable().optional(),
    barcode: z.string().nullable().optional(),
    vat_exempt: z.boolean().optional(),
    available: z.boolean().optional(),
    image_file_id: z.string().nullable().optional(),
    external_ref: z.string().nullable().optional(),
  };
  /** PUT /supplier/products/{sku} (the SKU is in the path). */
  const PutProductRequest = k.object(productFields);
  /** One item of POST /supplier/products/batch. */
  const ProductBatchItem = k.object({ sku: z.string().min(1).max(LIMITS.length.sku), ...productFields });
  const ProductBatchRequest = k.object({
    items: z.array(ProductBatchItem).min(1).max(LIMITS.batch.products),
  });
  /** POST /supplier/products/{sku}/availability */
  const SetAvailabilityRequest = k.object({
    available: z.boolean(),
    until: DateString.nullable().optional(),
    reason: z.string().max(LIMITS.length.availabilityReason).nullable().optional(),
  });
  /** PUT /supplier/price-lists/{price_list_id}/prices */
  const PutPricesRequest = k.object({ items: z.array(PriceEntry).min(1).max(LIMITS.batch.priceEntries) });
  /** POST /supplier/price-lists/{price_list_id}/buyers */
  const AssignPriceListBuyerRequest = k.object({ buyer_id: Id, valid_from: DateString.optional() });
  return {
    PatchSupplierBuyerRequest,
    CreateBuyerInvitationRequest,
    PutProductRequest,
    ProductBatchItem,
    ProductBatchRequest,
    SetAvailabilityRequest,
    PutPricesRequest,
    AssignPriceListBuyerRequest,
  };
}
