/**
 * The few amount calculations the sandbox needs beyond src/shared/decimal.ts (percentages, VAT, discounts),
 * all on bigint minor units from that module. Nothing here goes through a JS float.
 */
import {
  divideRoundHalfUp,
  formatMoney,
  formatQuantity,
  parseMoney,
  parseQuantity,
} from '../../shared/decimal.js';

export { isMoney, isQuantity, multiplyQuantityByPrice, sumMoney } from '../../shared/decimal.js';

/** Money in agorot (1/100 ILS) and back. */
export const cents = (text: string): bigint => parseMoney(text);
export const money = (units: bigint): string => formatMoney(units);
/** Quantity in thousandths and back. */
export const milli = (text: string): bigint => parseQuantity(text);
export const quantity = (units: bigint): string => formatQuantity(units);

/** Rounds half away from zero for either sign of the divisor's dividend (divisor positive). */
export const divRound = (dividend: bigint, divisor: bigint): bigint => divideRoundHalfUp(dividend, divisor);

/** price (agorot) x quantity (thousandths) -> agorot. */
export const lineTotal = (priceCents: bigint, quantityMilli: bigint): bigint =>
  divRound(priceCents * quantityMilli, 1000n);

/** Applies a percentage discount given as a decimal string ("10" or "12.5"). */
export function applyDiscount(totalCents: bigint, discountPct: string | null | undefined): bigint {
  if (discountPct === undefined || discountPct === null || discountPct === '') return totalCents;
  return totalCents - divRound(totalCents * parseQuantity(discountPct), 100_000n);
}

/** part / whole as a percentage with exactly 2 fraction digits; "0.00" when whole is zero. */
export function percent(part: bigint, whole: bigint): string {
  if (whole === 0n) return '0.00';
  const negative = whole < 0n;
  return formatMoney(divRound((negative ? -part : part) * 10_000n, negative ? -whole : whole));
}

/** Israeli VAT rate in basis points (18%). */
export const VAT_BASIS_POINTS = 1800n;
export const vatOf = (beforeVatCents: bigint): bigint => divRound(beforeVatCents * VAT_BASIS_POINTS, 10_000n);

export function sum(values: Iterable<bigint>): bigint {
  let total = 0n;
  for (const value of values) total += value;
  return total;
}
