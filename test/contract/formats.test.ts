import { describe, expect, it } from 'vitest';
import {
  AccountingPeriod,
  DateString,
  Money,
  Quantity,
  Timestamp,
  strict,
} from '../../src/contract/index.js';
import { exampleOrder } from './fixtures.js';

describe('shared formats', () => {
  it.each(['0.00', '12.50', '-47.44', '5000.01'])('money accepts %j', (value) => {
    expect(Money.safeParse(value).success).toBe(true);
  });
  it.each(['1.5', '1.234', '12', '1,50', '01.00'])('money rejects %j', (value) => {
    expect(Money.safeParse(value).success).toBe(false);
  });
  it('money rejects a JSON number even when it looks right', () => {
    expect(Money.safeParse(12.5).success).toBe(false);
  });

  it.each(['1', '1.5', '0.125', '-5'])('quantity accepts %j', (value) => {
    expect(Quantity.safeParse(value).success).toBe(true);
  });
  it.each(['1.2345', '1.', '.5', 'abc'])('quantity rejects %j', (value) => {
    expect(Quantity.safeParse(value).success).toBe(false);
  });

  it('timestamps need a UTC offset', () => {
    expect(Timestamp.safeParse('2026-11-20T07:30:00Z').success).toBe(true);
    expect(Timestamp.safeParse('2026-11-20T07:30:00+02:00').success).toBe(true);
    expect(Timestamp.safeParse('2026-11-20T07:30:00.123-05:30').success).toBe(true);
    const missing = Timestamp.safeParse('2026-11-20T07:30:00');
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]?.message).toMatch(/UTC offset/);
    expect(Timestamp.safeParse('2026-11-20').success).toBe(false);
  });

  it('dates are real calendar dates', () => {
    expect(DateString.safeParse('2024-02-29').success).toBe(true);
    expect(DateString.safeParse('2025-02-29').success).toBe(false);
    expect(DateString.safeParse('2026-11-20T00:00:00Z').success).toBe(false);
  });

  it.each(['2026-13', '2026-00', '2026-1', '26-11', '2026-11-01'])(
    'accounting period rejects %j',
    (value) => {
      expect(AccountingPeriod.safeParse(value).success).toBe(false);
    },
  );
  it('accounting period accepts YYYY-MM', () => {
    expect(AccountingPeriod.safeParse('2026-11').success).toBe(true);
  });

  it('formats are enforced inside resources, at the right path', () => {
    const order = exampleOrder();
    order['totals'] = { before_vat: '1.5', vat: '0.00', with_vat: '1.50' };
    order['updated_at'] = '2026-11-20T08:15:00';
    const result = strict.Order.safeParse(order);
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['totals.before_vat', 'updated_at']));
  });
});
