/** Linked buyer -> ERP customer, by the configured rules in order; an unmatched buyer gets a reason naming them. */
import type { ErpCustomer } from '../../connector-contract/index.js';
import type { SupplierBuyer } from '../../contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import type { BuyersOptions } from './options.js';

export type MatchResult = { ok: true; customer: ErpCustomer; rule: string } | { ok: false; reason: string };

const text = (value: string | null | undefined): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null;

export class CustomerMatcher {
  readonly #byNumber = new Map<string, ErpCustomer>();
  readonly #byErpRef = new Map<string, ErpCustomer>();
  readonly #byTaxId = new Map<string, ErpCustomer[]>();

  constructor(
    customers: readonly ErpCustomer[],
    private readonly options: Pick<BuyersOptions, 'match_by' | 'customer_mapping'>,
    private readonly mappings: Mappings,
  ) {
    for (const customer of customers) {
      this.#byNumber.set(customer.customerNumber, customer);
      if (customer.erpRef !== null) this.#byErpRef.set(customer.erpRef, customer);
      if (customer.taxId !== null) {
        this.#byTaxId.set(customer.taxId, [...(this.#byTaxId.get(customer.taxId) ?? []), customer]);
      }
    }
  }

  match(buyer: SupplierBuyer): MatchResult {
    const tried: string[] = [];
    for (const rule of this.options.match_by) {
      const found = this.#apply(rule, buyer, tried);
      if (found !== null) return { ok: true, customer: found, rule };
    }
    return {
      ok: false,
      reason: `no ERP customer for buyer ${buyer.id} ${JSON.stringify(buyer.name)} (${tried.join(', ')})`,
    };
  }

  #apply(rule: BuyersOptions['match_by'][number], buyer: SupplierBuyer, tried: string[]): ErpCustomer | null {
    switch (rule) {
      case 'customer_number': {
        const number = text(buyer.customer_number);
        const found = number === null ? undefined : this.#byNumber.get(number);
        if (found === undefined)
          tried.push(number === null ? 'customer_number null' : `customer_number ${number} not in the ERP`);
        return found ?? null;
      }
      case 'erp_ref': {
        const ref = text(buyer.erp_ref);
        const found = ref === null ? undefined : this.#byErpRef.get(ref);
        if (found === undefined) tried.push(ref === null ? 'erp_ref null' : `erp_ref ${ref} not in the ERP`);
        return found ?? null;
      }
      case 'mapping': {
        const table = this.options.customer_mapping;
        const number = text(this.mappings[table]?.[buyer.id]);
        const found = number === null ? undefined : this.#byNumber.get(number);
        if (found === undefined) {
          tried.push(
            number === null
              ? `not in mappings.${table}`
              : `mappings.${table} names ${number}, not in the ERP`,
          );
        }
        return found ?? null;
      }
      case 'tax_id': {
        const taxId = text(buyer.tax_id);
        const found = taxId === null ? [] : (this.#byTaxId.get(taxId) ?? []);
        if (found.length === 1) return found[0] ?? null;
        tried.push(
          taxId === null
            ? 'tax_id null'
            : found.length === 0
              ? `tax_id ${taxId} not in the ERP`
              : `tax_id ${taxId} shared by ${found.length} ERP customers`,
        );
        return null;
      }
    }
  }
}
