/** The supplier catalog: product upserts (single and batch), soft delete, availability (part 4.5). */
import type * as z from 'zod';
import type { DomainEnv } from './env.js';
import { nowIso, stampAfter } from './env.js';
import { invalidField, notFound, type ValidationItem } from './errors.js';
import type { AvailabilityBody, ProductBody } from './requests.js';
import { ProductBatchItem } from './requests.js';
import type { Product } from './types.js';
import { parseItem } from './validate.js';

export type ProductInput = z.output<typeof ProductBody>;

export function getProduct(env: DomainEnv, sku: string): Product {
  const product = env.state.products[sku];
  if (!product || product.deleted_at !== null) throw notFound('Product', sku);
  return product;
}

function imageErrors(
  env: DomainEnv,
  accountId: string,
  input: ProductInput,
  field: string,
): ValidationItem[] {
  const imageId = input.image_file_id;
  if (imageId === undefined || imageId === null || env.services.files.exists(accountId, imageId)) return [];
  return [{ field, code: 'not_found', message: `File ${imageId} was not found.` }];
}

/** Creates or replaces a product (a soft-deleted SKU comes back to life); `created` tells 201 from 200. */
export function upsertProduct(
  env: DomainEnv,
  accountId: string,
  sku: string,
  input: ProductInput,
  imageField = 'image_file_id',
): { product: Product; created: boolean } {
  const errors = imageErrors(env, accountId, input, imageField);
  const [first] = errors;
  if (first) throw invalidField(first.field, first.code, first.message ?? 'invalid');
  const existing = env.state.products[sku];
  const now = existing ? stampAfter(env, existing.updated_at) : nowIso(env);
  const product: Product = {
    sku,
    name: input.name,
    unit: input.unit,
    vat_exempt: input.vat_exempt ?? false,
    available: input.available ?? true,
    available_until: existing?.available_until ?? null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
    deleted_at: null,
  };
  if (input.package_quantity !== undefined) product.package_quantity = input.package_quantity;
  if (input.category !== undefined) product.category = input.category;
  if (input.barcode !== undefined) product.barcode = input.barcode;
  if (input.image_file_id !== undefined) product.image_file_id = input.image_file_id;
  if (input.external_ref !== undefined) product.external_ref = input.external_ref;
  if (product.available) product.available_until = null;
  if (input.image_file_id) env.services.files.markReferenced(input.image_file_id);
  env.state.products[sku] = product;
  return { product, created: !existing || existing.deleted_at !== null };
}

export function deleteProduct(env: DomainEnv, sku: string): void {
  const product = getProduct(env, sku);
  const now = stampAfter(env, product.updated_at);
  product.deleted_at = now;
  product.updated_at = now;
}

export function setAvailability(
  env: DomainEnv,
  sku: string,
  input: z.output<typeof AvailabilityBody>,
): Product {
  const product = getProduct(env, sku);
  product.available = input.available;
  product.available_until = input.available ? null : (input.until ?? null);
  product.updated_at = stampAfter(env, product.updated_at);
  return product;
}

export interface BatchItemResult {
  index: number;
  key?: string;
  status: 'created' | 'updated' | 'skipped' | 'failed';
  id?: string;
  errors?: ValidationItem[];
}
export interface BatchResponse {
  summary: { total: number; succeeded: number; failed: number; skipped: number };
  items: BatchItemResult[];
}

export function batchResponse(items: BatchItemResult[]): BatchResponse {
  const failed = items.filter((item) => item.status === 'failed').length;
  const skipped = items.filter((item) => item.status === 'skipped').length;
  return {
    summary: { total: items.length, succeeded: items.length - failed - skipped, failed, skipped },
    items,
  };
}

const keyOf = (item: unknown): string | undefined => {
  const sku = typeof item === 'object' && item !== null ? (item as { sku?: unknown }).sku : undefined;
  return typeof sku === 'string' ? sku : undefined;
};

/** Each item succeeds or fails on its own; a SKU repeated in one batch is applied in order. */
export function upsertProductBatch(
  env: DomainEnv,
  accountId: string,
  items: readonly unknown[],
): BatchResponse {
  const results = items.map((raw, index): BatchItemResult => {
    const key = keyOf(raw);
    const parsed = parseItem(ProductBatchItem, raw, `items[${index}]`);
    const base = key === undefined ? { index } : { index, key };
    if (!parsed.ok) return { ...base, status: 'failed', errors: parsed.errors };
    const { sku, ...input } = parsed.value;
    const errors = imageErrors(env, accountId, input, `items[${index}].image_file_id`);
    if (errors.length > 0) return { ...base, status: 'failed', errors };
    const { created } = upsertProduct(env, accountId, sku, input);
    return { ...base, status: created ? 'created' : 'updated', id: sku };
  });
  return batchResponse(results);
}
