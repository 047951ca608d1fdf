/**
 * Exact decimal arithmetic for the contract's money (exactly 2 fraction digits) and quantities (up to 3), on bigint
 * minor units. JS numbers never touch an amount: values enter and leave as the contract's decimal strings.
 *
 * Rounding is half away from zero ("half-up" on magnitudes), so a credit note rounds exactly like its invoice
 * with the sign flipped.
 */

export class DecimalFormatError extends Error {
  constructor(
    readonly kind: 'money' | 'quantity' | 'decimal',
    readonly input: unknown,
    expected: string,
  ) {
    super(`invalid ${kind} ${describe(input)}: expected ${expected}`);
    this.name = 'DecimalFormatError';
  }
}

function describe(input: unknown): string {
  if (typeof input === 'string') return JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input);
  return `of type ${input === null ? 'null' : typeof input}`;
}

export const MONEY_SCALE = 2;
export const QUANTITY_SCALE = 3;

/** Money: optional minus, no leading zeros, exactly 2 fraction digits ("0.00", "-12.50", "5000.01"). */
export const MONEY_PATTERN = /^-?(?:0|[1-9]\d*)\.\d{2}$/;
/** Quantity: optional minus, no leading zeros, up to 3 fraction digits ("2", "1.5", "0.125"). */
export const QUANTITY_PATTERN = /^-?(?:0|[1-9]\d*)(?:\.\d{1,3})?$/;
/** Any plain decimal (for rounding inputs from other systems): "12", "-0.005", "3.14159". */
const DECIMAL_PATTERN = /^-?\d+(?:\.\d+)?$/;

const MONEY_EXPECTED = 'a decimal string with exactly 2 fraction digits, e.g. "12.50"';
const QUANTITY_EXPECTED = 'a decimal string with up to 3 fraction digits, e.g. "1.5" or "2.125"';

/** Integers of at most this many digits are exact as numbers, which convert to bigint faster than text does. */
const EXACT_NUMBER_DIGITS = 15;

/** Parses digits with a known scale into minor units; `text` must already match its pattern. */
function toUnits(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const whole = dot < 0 ? body : body.slice(0, dot);
  const fraction = dot < 0 ? '' : body.slice(dot + 1);
  const digits = whole + fraction.padEnd(scale, '0');
  const units = digits.length <= EXACT_NUMBER_DIGITS ? BigInt(Number(digits)) : BigInt(digits);
  return negative ? -units : units;
}

function fromUnits(units: bigint, scale: number, minScale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  let fraction = digits.slice(digits.length - scale);
  while (fraction.length > minScale && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  const text = fraction.length > 0 ? `${whole}.${fraction}` : whole;
  return negative ? `-${text}` : text;
}

/** Integer division rounding half away from zero. `divisor` must be positive. */
export function divideRoundHalfUp(dividend: bigint, divisor: bigint): bigint {
  if (divisor <= 0n) throw new RangeError('divisor must be positive');
  const negative = dividend < 0n;
  const magnitude = negative ? -dividend : dividend;
  let quotient = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) quotient += 1n;
  return negative ? -quotient : quotient;
}

// ---------- money ----------

export function isMoney(value: unknown): value is string {
  return typeof value === 'string' && MONEY_PATTERN.test(value);
}

/** "12.50" -> 1250n (agorot). Throws DecimalFormatError on anything but the contract's money format. */
export function parseMoney(value: unknown): bigint {
  if (!isMoney(value)) throw new DecimalFormatError('money', value, MONEY_EXPECTED);
  return toUnits(value, MONEY_SCALE);
}

/** 1250n -> "12.50"; -5n -> "-0.05". */
export function formatMoney(minorUnits: bigint): string {
  return fromUnits(minorUnits, MONEY_SCALE, MONEY_SCALE);
}

export function addMoney(a: string, b: string): string {
  return formatMoney(parseMoney(a) + parseMoney(b));
}

export function subMoney(a: string, b: string): string {
  return formatMoney(parseMoney(a) - parseMoney(b));
}

export function sumMoney(values: Iterable<string>): string {
  let total = 0n;
  for (const value of values) total += parseMoney(value);
  return formatMoney(total);
}

export function negateMoney(value: string): string {
  return formatMoney(-parseMoney(value));
}

/** -1, 0 or 1, like a sort comparator. */
export function compareMoney(a: string, b: string): -1 | 0 | 1 {
  return compareUnits(parseMoney(a), parseMoney(b));
}

/** Numeric equality: "-0.00" equals "0.00". */
export function moneyEquals(a: string, b: string): boolean {
  return parseMoney(a) === parseMoney(b);
}

/**
 * Rounds any plain decimal string (as read from an ERP's DECIMAL column, e.g. "12.345" or "7") to money,
 * half away from zero.
 */
export function roundToMoney(value: unknown): string {
  if (typeof value !== 'string' || !DECIMAL_PATTERN.test(value)) {
    throw new DecimalFormatError('decimal', value, 'a plain decimal string such as "12.345"');
  }
  const fraction = value.split('.')[1] ?? '';
  const scale = Math.max(fraction.length, MONEY_SCALE);
  const units = toUnits(value, scale);
  return formatMoney(divideRoundHalfUp(units, 10n ** BigInt(scale - MONEY_SCALE)));
}

const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * An amount from another system as contract money, without rounding: "12.5" and "12.500" become "12.50"; "12.345"
 * is undefined, because rounding it would change what the buyer receives. Leading zeros and surrounding spaces are
 * dropped; "-0" is "0.00".
 */
export function exactMoney(value: string): string | undefined {
  const match = PLAIN_DECIMAL.exec(value.trim());
  if (match === null) return undefined;
  const [, sign = '', whole = '', fraction = ''] = match;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > MONEY_SCALE) return undefined;
  const text = `${whole.replace(/^0+(?=\d)/, '')}.${significant.padEnd(MONEY_SCALE, '0')}`;
  return sign === '-' && /[1-9]/.test(text) ? `-${text}` : text;
}

// ---------- quantity ----------

export function isQuantity(value: unknown): value is string {
  return typeof value === 'string' && QUANTITY_PATTERN.test(value);
}

/** "1.5" -> 1500n (thousandths). Throws DecimalFormatError on anything but the contract's quantity format. */
export function parseQuantity(value: unknown): bigint {
  if (!isQuantity(value)) throw new DecimalFormatError('quantity', value, QUANTITY_EXPECTED);
  return toUnits(value, QUANTITY_SCALE);
}

/** 1500n -> "1.5"; 2000n -> "2" (shortest form; the contract allows up to 3 fraction digits). */
export function formatQuantity(thousandths: bigint): string {
  return fromUnits(thousandths, QUANTITY_SCALE, 0);
}

export function addQuantity(a: string, b: string): string {
  return formatQuantity(parseQuantity(a) + parseQuantity(b));
}

export function subQuantity(a: string, b: string): string {
  return formatQuantity(parseQuantity(a) - parseQuantity(b));
}

export function sumQuantity(values: Iterable<string>): string {
  let total = 0n;
  for (const value of values) total += parseQuantity(value);
  return formatQuantity(total);
}

export function compareQuantity(a: string, b: string): -1 | 0 | 1 {
  return compareUnits(parseQuantity(a), parseQuantity(b));
}

/** Numeric equality: "2" equals "2.000". */
export function quantityEquals(a: string, b: string): boolean {
  return parseQuantity(a) === parseQuantity(b);
}

// ---------- mixed ----------

/** quantity × unit price, rounded half away from zero to money: ("3", "9.99") -> "29.97"; ("0.333", "1.50") -> "0.50". */
export function multiplyQuantityByPrice(quantity: string, unitPrice: string): string {
  const product = parseQuantity(quantity) * parseMoney(unitPrice); // scale 3 + 2
  return formatMoney(divideRoundHalfUp(product, 10n ** BigInt(QUANTITY_SCALE)));
}

function compareUnits(a: bigint, b: bigint): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}
