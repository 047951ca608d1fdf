/** The demo supplier's catalog and price lists, generated from the product families. */
import type { DomainEnv } from '../env.js';
import { divRound, money } from '../money.js';
import type { PriceEntry, Product } from '../types.js';
import { PRODUCT_FAMILIES } from '../../../demo-data/index.js';
import type { Random } from './random.js';

export const STANDARD_PRICE_LIST_ID = 'pl_standard';
export const EVENTS_PRICE_LIST_ID = 'pl_events';

export function seedCatalog(env: DomainEnv, random: Random, at: string): void {
  const standard: PriceEntry[] = [];
  const events: PriceEntry[] = [];
  let serial = 0;
  for (const family of PRODUCT_FAMILIES) {
    for (const name of family.names) {
      for (const size of family.sizes) {
        serial += 1;
        const sku = `${family.code}-${String(serial).padStart(4, '0')}`;
        const product: Product = {
          sku,
          name: `${name} (${size.label})`,
          unit: family.unit,
          package_quantity: size.packageQuantity,
          category: family.category,
          barcode: `729${String(100000000 + serial * 7919).slice(0, 9)}${serial % 10}`,
          vat_exempt: family.vatExempt,
          available: random.chance(0.95),
          available_until: null,
          external_ref: `ERP-${sku}`,
          created_at: at,
          updated_at: at,
          deleted_at: null,
        };
        env.state.products[sku] = product;
        // Base price x size factor (per mille) x a +-15% spread, all in integer agorot.
        const spread = BigInt(random.int(850, 1150));
        const price = divRound(BigInt(family.basePrice) * BigInt(size.permille) * spread, 1_000_000n);
        standard.push({ sku, price: money(price < 1n ? 1n : price) });
        if (random.chance(0.3))
          events.push({
            sku,
            price: money(divRound(price * 95n, 100n) || 1n),
            min_quantity: '10',
            valid_from: at.slice(0, 10),
          });
      }
    }
  }
  env.state.priceLists[STANDARD_PRICE_LIST_ID] = {
    id: STANDARD_PRICE_LIST_ID,
    name: 'Standard 2026',
    currency: 'ILS',
    buyer_ids: [],
    updated_at: at,
  };
  env.state.priceLists[EVENTS_PRICE_LIST_ID] = {
    id: EVENTS_PRICE_LIST_ID,
    name: 'Events and catering volume',
    currency: 'ILS',
    buyer_ids: [],
    updated_at: at,
  };
  env.state.prices[STANDARD_PRICE_LIST_ID] = standard;
  env.state.prices[EVENTS_PRICE_LIST_ID] = events;
}
