/** Line and order totals. */
import { applyDiscount, cents, lineTotal, milli, money, sum, vatOf } from './money.js';
import type { Totals } from './types.js';

export interface PricedLine {
  quantity: string;
  unit_price: string;
  discount_pct?: string | null;
  vat_exempt?: boolean;
}

export const computeLineTotal = (line: PricedLine): string =>
  money(applyDiscount(lineTotal(cents(line.unit_price), milli(line.quantity)), line.discount_pct));

/** before_vat = sum of line totals; VAT on the lines that are not exempt. */
export function computeTotals(lines: readonly (PricedLine & { total: string })[]): Totals {
  const beforeVat = sum(lines.map((line) => cents(line.total)));
  const taxable = sum(lines.filter((line) => line.vat_exempt !== true).map((line) => cents(line.total)));
  const vat = vatOf(taxable);
  return { before_vat: money(beforeVat), vat: money(vat), with_vat: money(beforeVat + vat) };
}
