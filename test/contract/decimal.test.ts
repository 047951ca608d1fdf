import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DecimalFormatError,
  addMoney,
  addQuantity,
  compareMoney,
  compareQuantity,
  divideRoundHalfUp,
  exactMoney,
  formatMoney,
  formatQuantity,
  moneyEquals,
  multiplyQuantityByPrice,
  negateMoney,
  parseMoney,
  parseQuantity,
  quantityEquals,
  roundToMoney,
  subMoney,
  subQuantity,
  sumMoney,
  sumQuantity,
} from '../../src/shared/decimal.js';

describe('money', () => {
  it('parses and formats exact minor units', () => {
    expect(parseMoney('12.50')).toBe(1250n);
    expect(parseMoney('-0.05')).toBe(-5n);
    expect(parseMoney('0.00')).toBe(0n);
    // Either side of the 15 digits that convert through a number.
    expect(parseMoney('9999999999999.99')).toBe(999999999999999n);
    expect(parseMoney('-99999999999999.99')).toBe(-9999999999999999n);
    expect(parseMoney('1234567890123456789012.34')).toBe(123456789012345678901234n);
    expect(formatMoney(1250n)).toBe('12.50');
    expect(formatMoney(-5n)).toBe('-0.05');
    expect(formatMoney(-100n)).toBe('-1.00');
    expect(formatMoney(123456789012345678901234n)).toBe('1234567890123456789012.34');
  });

  it.each(['1.5', '1.234', '1', '01.00', '.50', '1.', ' 1.00', '1,00', '+1.00', '1e3', '', 'NaN'])(
    'rejects %j with a clear error',
    (input) => {
      expect(() => parseMoney(input)).toThrow(DecimalFormatError);
      expect(() => parseMoney(input)).toThrow(/exactly 2 fraction digits/);
    },
  );

  it('rejects non-strings, never coercing a float', () => {
    expect(() => parseMoney(1.5)).toThrow(/of type number/);
    expect(() => parseMoney(null)).toThrow(/of type null/);
  });

  it('adds, subtracts and negates across zero (credit notes)', () => {
    expect(addMoney('10.00', '-40.20')).toBe('-30.20');
    expect(subMoney('0.10', '0.30')).toBe('-0.20');
    expect(negateMoney('47.44')).toBe('-47.44');
    expect(negateMoney('0.00')).toBe('0.00');
    expect(addMoney('0.10', '0.20')).toBe('0.30');
  });

  it('sums many values without drift', () => {
    expect(sumMoney(Array.from({ length: 100_000 }, () => '0.01'))).toBe('1000.00');
    expect(sumMoney(Array.from({ length: 1000 }, () => '0.10'))).toBe('100.00');
    expect(sumMoney(['1475.59', '-47.44', '-1428.15'])).toBe('0.00');
    expect(sumMoney([])).toBe('0.00');
  });

  it('compares numerically, not lexically', () => {
    expect(compareMoney('9.99', '10.00')).toBe(-1);
    expect(compareMoney('-1.00', '-0.50')).toBe(-1);
    expect(compareMoney('5000.01', '5000.00')).toBe(1);
    expect(compareMoney('-0.00', '0.00')).toBe(0);
    expect(moneyEquals('-0.00', '0.00')).toBe(true);
    expect(moneyEquals('1.00', '1.01')).toBe(false);
  });

  it('rounds other systems decimals half away from zero', () => {
    expect(roundToMoney('12.345')).toBe('12.35');
    expect(roundToMoney('12.344')).toBe('12.34');
    expect(roundToMoney('-12.345')).toBe('-12.35');
    expect(roundToMoney('7')).toBe('7.00');
    expect(roundToMoney('0.004999')).toBe('0.00');
    expect(roundToMoney('2.675')).toBe('2.68'); // 2.675 as a float rounds to 2.67
    expect(() => roundToMoney('1,5')).toThrow(DecimalFormatError);
  });

  it('round-trips every well-formed amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (units) => {
        expect(parseMoney(formatMoney(units))).toBe(units);
      }),
    );
  });

  it('addition and subtraction are inverse', () => {
    const amount = fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).map(formatMoney);
    fc.assert(
      fc.property(amount, amount, (a, b) => {
        expect(subMoney(addMoney(a, b), b)).toBe(a);
      }),
    );
  });

  it('takes an amount from another system as money only when no rounding is needed', () => {
    expect(exactMoney('12.5')).toBe('12.50');
    expect(exactMoney(' 012.500 ')).toBe('12.50');
    expect(exactMoney('7')).toBe('7.00');
    expect(exactMoney('-3.1')).toBe('-3.10');
    expect(exactMoney('-0.00')).toBe('0.00');
    expect(exactMoney('12.345')).toBeUndefined();
    expect(exactMoney('1e3')).toBeUndefined();
    expect(exactMoney('12,50')).toBeUndefined();
  });

  it('gives every well-formed amount back as it is', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (units) => {
        expect(exactMoney(formatMoney(units))).toBe(formatMoney(units));
      }),
    );
  });
});

describe('quantity', () => {
  it('accepts up to 3 fraction digits and formats the shortest form', () => {
    expect(parseQuantity('2')).toBe(2000n);
    expect(parseQuantity('1.5')).toBe(1500n);
    expect(parseQuantity('0.125')).toBe(125n);
    expect(parseQuantity('-5')).toBe(-5000n);
    expect(formatQuantity(1500n)).toBe('1.5');
    expect(formatQuantity(2000n)).toBe('2');
    expect(formatQuantity(-125n)).toBe('-0.125');
  });

  it('rejects a quantity with 4 decimals', () => {
    expect(() => parseQuantity('1.2345')).toThrow(/up to 3 fraction digits/);
  });

  it('does arithmetic and comparison', () => {
    expect(addQuantity('0.1', '0.2')).toBe('0.3');
    expect(subQuantity('1', '1.001')).toBe('-0.001');
    expect(sumQuantity(['12.5', '0.25', '0.125'])).toBe('12.875');
    expect(compareQuantity('2', '10')).toBe(-1);
    expect(quantityEquals('2', '2.000')).toBe(true);
  });
});

describe('multiplyQuantityByPrice', () => {
  it('computes line totals exactly', () => {
    expect(multiplyQuantityByPrice('3', '9.99')).toBe('29.97');
    expect(multiplyQuantityByPrice('12.5', '8.04')).toBe('100.50');
    expect(multiplyQuantityByPrice('-5', '8.04')).toBe('-40.20');
  });

  it('rounds half away from zero, symmetric for negative quantities', () => {
    expect(multiplyQuantityByPrice('0.333', '1.50')).toBe('0.50'); // 0.4995
    expect(multiplyQuantityByPrice('0.001', '5.00')).toBe('0.01'); // 0.005: a tie
    expect(multiplyQuantityByPrice('-0.001', '5.00')).toBe('-0.01');
    expect(multiplyQuantityByPrice('0.001', '4.99')).toBe('0.00'); // 0.00499
    expect(multiplyQuantityByPrice('1.005', '1.00')).toBe('1.01'); // 1.005 as a float rounds to 1.00
  });

  it('never moves more than half a cent from the exact product', () => {
    const quantity = fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n });
    const price = fc.bigInt({ min: 1n, max: 10n ** 9n });
    fc.assert(
      fc.property(quantity, price, (q, p) => {
        const result = parseMoney(multiplyQuantityByPrice(formatQuantity(q), formatMoney(p)));
        const exact = q * p; // scale 5
        const error = result * 1000n - exact;
        const magnitude = error < 0n ? -error : error;
        expect(magnitude <= 500n).toBe(true);
        // ties go away from zero
        if (magnitude === 500n) expect(result * 1000n > exact).toBe(exact > 0n);
      }),
    );
  });

  it('divideRoundHalfUp refuses a non-positive divisor', () => {
    expect(() => divideRoundHalfUp(1n, 0n)).toThrow(RangeError);
  });
});
