/**
 * API order -> ERP order: buyer to customer, SKU to item, branch to ship-to, purchase type. Every value that cannot
 * be mapped is named, so the dead letter tells the operator exactly which mapping to add.
 */
import type { ErpOrder, ErpOrderLine } from '../../connector-contract/index.js';
import type { Order } from '../../contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import type { MissingMapping } from '../../shared/missing-mapping.js';
import type { OrdersOptions } from './options.js';

/** Reads a linked buyer's erp_ref (null when the buyer has none or is unknown); cached by the caller per run. */
export type BuyerErpRefLookup = (buyerId: string) => Promise<string | null>;

/**
 * A failed mapping names every problem; `missing` is the mapping to add when that is the only one, so the letters of
 * all the orders held back for the same value group together with their fix.
 */
export type MappingResult =
  { ok: true; order: ErpOrder } | { ok: false; problems: string[]; missing: MissingMapping | undefined };

/** The problems found so far, and the table entry each one that is a missing mapping lacks. */
interface Problems {
  readonly texts: string[];
  readonly missing: MissingMapping[];
}

/** Names a value the table lacks, once per order however many lines use it. */
function lacking(problems: Problems, text: string, kind: string, table: string, key: string): void {
  if (problems.missing.some((named) => named.table === table && named.key === key)) return;
  problems.texts.push(text);
  // An empty value cannot be added under mappings: the letter keeps its reason, with no fix to follow.
  if (key.trim() !== '') problems.missing.push({ kind, table, key, pickup: 'retry' });
}

type MappingOptions = Pick<
  OrdersOptions,
  | 'customer_mapping'
  | 'ship_to_mapping'
  | 'unmapped_branch'
  | 'item_mapping'
  | 'unmapped_item'
  | 'purchase_type_mapping'
  | 'unmapped_purchase_type'
  | 'time_zone'
>;

const present = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '';

const shown = (value: string | null | undefined): string => (value == null ? 'null' : JSON.stringify(value));

export class OrderMapper {
  readonly #dateFormat: Intl.DateTimeFormat;

  constructor(
    private readonly options: MappingOptions,
    private readonly mappings: Mappings,
    private readonly erpRefOf: BuyerErpRefLookup,
  ) {
    this.#dateFormat = new Intl.DateTimeFormat('en-CA', {
      timeZone: options.time_zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
  }

  async map(order: Order): Promise<MappingResult> {
    const problems: Problems = { texts: [], missing: [] };
    const customerNumber = await this.#customer(order, problems);
    const shipTo = this.#shipTo(order, problems);
    const purchaseType = this.#purchaseType(order, problems);
    const lines = (order.lines ?? []).map((line, index): ErpOrderLine => {
      const itemCode = this.#item(line.sku, line.name, problems);
      return {
        lineNumber: index + 1,
        apiLineId: line.id,
        itemCode: itemCode ?? line.sku,
        description: line.name,
        quantity: line.quantity,
        unit: line.unit ?? null,
        unitPrice: line.unit_price,
        discountPct: line.discount_pct ?? null,
        total: line.total,
        vatExempt: line.vat_exempt ?? false,
        notes: line.notes ?? null,
      };
    });
    if (order.lines === undefined)
      problems.texts.push(`order ${order.number} (${order.id}) came without lines`);
    if (problems.texts.length > 0 || customerNumber === null) {
      const only =
        problems.texts.length === 1 && problems.missing.length === 1 ? problems.missing[0] : undefined;
      return { ok: false, problems: problems.texts, missing: only };
    }
    return {
      ok: true,
      order: {
        apiOrderId: order.id,
        orderNumber: order.number,
        customerNumber,
        shipTo,
        purchaseType,
        orderDate: this.#localDate(order.sent_at ?? order.created_at),
        deliveryDate: order.delivery_date,
        windowFrom: order.delivery_window?.from ?? null,
        windowTo: order.delivery_window?.to ?? null,
        currency: order.currency,
        totalBeforeVat: order.totals.before_vat,
        vat: order.totals.vat,
        totalWithVat: order.totals.with_vat,
        notes: order.notes ?? null,
        lines,
      },
    };
  }

  async #customer(order: Order, problems: Problems): Promise<string | null> {
    const { buyer } = order;
    if (present(buyer.customer_number)) return buyer.customer_number;
    const erpRef = await this.erpRefOf(buyer.id);
    if (present(erpRef)) return erpRef;
    const table = this.options.customer_mapping;
    const mapped = this.mappings[table]?.[buyer.id];
    if (present(mapped)) return mapped;
    lacking(
      problems,
      `no ERP customer for buyer ${buyer.id} ${JSON.stringify(buyer.name)} (customer_number ${shown(buyer.customer_number)}, erp_ref ${shown(erpRef)}, not in mappings.${table})`,
      'buyer',
      table,
      buyer.id,
    );
    return null;
  }

  #shipTo(order: Order, problems: Problems): string | null {
    const branch = order.branch;
    if (branch === undefined) return null;
    const table = this.options.ship_to_mapping;
    const entries = this.mappings[table];
    // Without the table, ship-to codes are the API's branch ids (the ERP keeps them as they are).
    if (entries === undefined) return branch.id;
    const mapped = entries[branch.id];
    if (present(mapped)) return mapped;
    switch (this.options.unmapped_branch) {
      case 'branch_id':
        return branch.id;
      case 'empty':
        return null;
      case 'dead_letter':
        lacking(
          problems,
          `no ship-to for branch ${branch.id} ${JSON.stringify(branch.name)} (not in mappings.${table})`,
          'branch',
          table,
          branch.id,
        );
        return null;
    }
  }

  #purchaseType(order: Order, problems: Problems): string | null {
    const value = order.purchase_type;
    if (!present(value)) return null;
    const table = this.options.purchase_type_mapping;
    const mapped = this.mappings[table]?.[value];
    if (present(mapped)) return mapped;
    if (this.options.unmapped_purchase_type === 'identity') return value;
    lacking(
      problems,
      `no ERP purchase type for ${JSON.stringify(value)} (not in mappings.${table})`,
      'purchase type',
      table,
      value,
    );
    return null;
  }

  #item(sku: string, name: string, problems: Problems): string | null {
    const table = this.options.item_mapping;
    const mapped = this.mappings[table]?.[sku];
    if (present(mapped)) return mapped;
    if (this.options.unmapped_item === 'identity') return sku;
    lacking(
      problems,
      `no ERP item for SKU ${sku} ${JSON.stringify(name)} (not in mappings.${table})`,
      'SKU',
      table,
      sku,
    );
    return null;
  }

  #localDate(timestamp: string): string {
    return this.#dateFormat.format(new Date(timestamp));
  }
}
