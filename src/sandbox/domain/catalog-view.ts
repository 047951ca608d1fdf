/** The buyer's view of the supplier catalog (GET /products), derived from products and the assigned prices. */
import type { DomainEnv } from './env.js';
import { pricesFor, productCategoryId } from './lookup.js';
import { DEMO_BUYER_ID, DEMO_SUPPLIER_ID } from '../../demo-data/index.js';
import type { CatalogProduct } from './types.js';

const NON_INVENTORY_CATEGORIES = new Set(['Cleaning', 'Packaging']);

export function catalogProducts(env: DomainEnv): CatalogProduct[] {
  const listId = env.state.supplierBuyers[DEMO_BUYER_ID]?.price_list_id ?? null;
  const listUpdatedAt = listId === null ? undefined : env.state.priceLists[listId]?.updated_at;
  const prices = pricesFor(env);
  const products: CatalogProduct[] = [];
  for (const product of Object.values(env.state.products)) {
    const price = prices.get(product.sku);
    if (price === undefined) continue;
    const updatedAt =
      listUpdatedAt !== undefined && Date.parse(listUpdatedAt) > Date.parse(product.updated_at)
        ? listUpdatedAt
        : product.updated_at;
    const view: CatalogProduct = {
      id: `prd_${product.sku}`,
      sku: product.sku,
      name: product.name,
      supplier_id: DEMO_SUPPLIER_ID,
      product_group: product.category ?? 'General',
      category_id: productCategoryId(product),
      unit: product.unit,
      current_price: price,
      vat_exempt: product.vat_exempt,
      inventory_item: !NON_INVENTORY_CATEGORIES.has(product.category ?? ''),
      active: product.deleted_at === null && product.available,
      updated_at: updatedAt,
    };
    if (product.package_quantity !== undefined) view.package_quantity = product.package_quantity;
    products.push(view);
  }
  return products;
}
