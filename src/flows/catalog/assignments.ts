/**
 * Price-list assignments from the ERP's customer records: each linked buyer gets the API price list its ERP
 * customer's price list code maps to. Compared against the buyer's current price_list_id, so a repeat after a
 * crash finds nothing to do.
 */
import type { ErpCustomer } from '../../connector-contract/index.js';
import type { SupplierBuyer } from '../../contract/index.js';
import { idempotencyKey } from '../../engine/index.js';
import { count, shouldStop, type PushContext } from './push-context.js';

export interface AssignmentInput {
  customers: readonly ErpCustomer[];
  priceListIdOf(erpCode: string): string | undefined;
  /** API buyer id -> ERP customer number (the config's mapping table). */
  customerMapping: Readonly<Record<string, string>>;
}

export async function assignPriceLists(ctx: PushContext, input: AssignmentInput): Promise<void> {
  const buyers: SupplierBuyer[] = [];
  for await (const buyer of ctx.api.supplierBuyers.list({ limit: 200, signal: ctx.budget.signal }).items()) {
    buyers.push(buyer);
  }
  const buyerOf = new Map<string, SupplierBuyer>();
  for (const buyer of buyers) if (buyer.erp_ref) buyerOf.set(buyer.erp_ref, buyer);
  for (const buyer of buyers) if (buyer.customer_number) buyerOf.set(buyer.customer_number, buyer);
  for (const [buyerId, customer] of Object.entries(input.customerMapping)) {
    const buyer = buyers.find((candidate) => candidate.id === buyerId);
    if (buyer) buyerOf.set(customer, buyer);
  }
  for (const customer of input.customers) {
    if (customer.priceList === null) continue;
    const buyer = buyerOf.get(customer.customerNumber);
    if (buyer === undefined || buyer.status !== 'active') continue;
    const priceListId = input.priceListIdOf(customer.priceList);
    if (priceListId === undefined) {
      count(ctx, 'assignments_unmapped');
      continue;
    }
    if (buyer.price_list_id === priceListId) continue;
    if (shouldStop(ctx)) return;
    await ctx.api.priceLists.assignBuyer(
      priceListId,
      { buyer_id: buyer.id },
      {
        signal: ctx.budget.signal,
        // The assignment as a change from the list the buyer has: the same change from any instance is one write.
        idempotencyKey: idempotencyKey(
          'price-list-assignment',
          buyer.id,
          buyer.price_list_id ?? 'none',
          priceListId,
        ),
      },
    );
    count(ctx, 'price_lists_assigned');
  }
}
