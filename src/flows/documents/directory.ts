/**
 * ERP customer numbers and ship-to codes -> API buyer and branch ids. The config's mapping tables run API value ->
 * ERP value (the same tables the orders flow reads), so they are inverted here; a buyer's own customer_number or
 * erp_ref is the fallback.
 */
import type { SupplierBuyer } from '../../contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import type { DocumentsApi } from './api.js';

export interface BuyerDirectory {
  buyerFor(customerNumber: string): SupplierBuyer | undefined;
  /** The branch id for a ship-to code, `null` when there is no code, `undefined` when it maps to nothing. */
  branchFor(buyer: SupplierBuyer, shipTo: string | null): string | null | undefined;
}

function invert(table: Readonly<Record<string, string>> | undefined): Map<string, string> {
  const inverted = new Map<string, string>();
  for (const [apiValue, erpValue] of Object.entries(table ?? {})) inverted.set(erpValue, apiValue);
  return inverted;
}

export async function loadBuyerDirectory(
  api: DocumentsApi,
  mappings: Mappings,
  tables: { customers: string; shipTo: string },
  signal: AbortSignal,
): Promise<BuyerDirectory> {
  const byId = new Map<string, SupplierBuyer>();
  for await (const buyer of api.supplierBuyers.list({ limit: 200, signal }).items())
    byId.set(buyer.id, buyer);
  const byCustomer = new Map<string, SupplierBuyer>();
  for (const buyer of byId.values()) {
    if (buyer.erp_ref) byCustomer.set(buyer.erp_ref, buyer);
  }
  for (const buyer of byId.values()) {
    if (buyer.customer_number) byCustomer.set(buyer.customer_number, buyer);
  }
  for (const [customer, buyerId] of invert(mappings[tables.customers])) {
    const buyer = byId.get(buyerId);
    if (buyer) byCustomer.set(customer, buyer);
  }
  const shipTos = invert(mappings[tables.shipTo]);
  return {
    buyerFor: (customerNumber) => byCustomer.get(customerNumber),
    branchFor(buyer, shipTo) {
      if (shipTo === null || shipTo === '') return null;
      const branches = buyer.branches ?? [];
      const mapped = shipTos.get(shipTo);
      if (mapped !== undefined && branches.some((branch) => branch.id === mapped)) return mapped;
      if (branches.some((branch) => branch.id === shipTo)) return shipTo;
      return undefined;
    },
  };
}
