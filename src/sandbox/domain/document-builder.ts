/** Builds a supplier document body from an order (for seed data and control-plane simulation). */
import type { DocumentInput, DocumentLineInput } from './documents.js';
import { computeLineTotal } from './order-math.js';
import { cents, money, sum, vatOf } from './money.js';
import type { Order } from './types.js';

/** Above 5,000.00 ILS before VAT invoices carry an allocation number. */
const ALLOCATION_THRESHOLD_CENTS = 500_000n;

export function documentInputFromOrder(
  order: Order,
  type: string,
  number: string,
  date: string,
): DocumentInput {
  const lines: DocumentLineInput[] = order.lines
    .map((line) => {
      const quantity = line.quantity_confirmed ?? line.quantity;
      return {
        sku: line.substitute_sku ?? line.sku,
        name: line.name,
        quantity,
        unit: line.unit,
        unit_price: line.unit_price,
        discount_pct: line.discount_pct,
        vat_exempt: line.vat_exempt,
        total: computeLineTotal({ quantity, unit_price: line.unit_price, discount_pct: line.discount_pct }),
        order_id: order.id,
        order_line_id: line.id,
      };
    })
    .filter((line) => cents(line.total) > 0n);
  const beforeVat = sum(lines.map((line) => cents(line.total)));
  const vat = vatOf(sum(lines.filter((line) => line.vat_exempt !== true).map((line) => cents(line.total))));
  const input: DocumentInput = {
    type,
    number,
    date,
    buyer_id: order.buyer.id,
    branch_id: order.branch.id,
    purchase_type: order.purchase_type,
    order_ids: [order.id],
    currency: 'ILS',
    totals: { before_vat: money(beforeVat), vat: money(vat), with_vat: money(beforeVat + vat) },
    lines,
  };
  if (type !== 'delivery_note' && beforeVat > ALLOCATION_THRESHOLD_CENTS)
    input.allocation_number = `${number.replace(/\D/g, '').padStart(9, '0').slice(-9)}`;
  return input;
}
