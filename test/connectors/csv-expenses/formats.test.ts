/** The back-office cell formats the csv-expenses config names: each accepted form and each refused one. */
import { describe, expect, it } from 'vitest';
import { csvExpensesConfigSchema } from '../../../connectors/csv-expenses/index.js';
import { DEFAULT_FORMATS, normalAmount, normalDate } from '../../../connectors/csv-expenses/formats.js';

describe('expense cell formats', () => {
  it.each([
    ['2026-11-20', 'YYYY-MM-DD', '2026-11-20'],
    ['20/11/2026', 'DD/MM/YYYY', '2026-11-20'],
    ['5/1/2026', 'DD/MM/YYYY', '2026-01-05'],
    ['20.11.2026', 'DD.MM.YYYY', '2026-11-20'],
    ['11/20/2026', 'MM/DD/YYYY', '2026-11-20'],
    ['20/11/2026', 'YYYY-MM-DD', null],
    ['31/02/2026', 'DD/MM/YYYY', null],
    ['11/20/2026', 'DD/MM/YYYY', null],
  ] as const)('date %s in %s is %s', (value, format, expected) => {
    expect(normalDate(value, format)).toBe(expected);
  });

  const shekels = { ...DEFAULT_FORMATS, thousands: ',' as const, currencySign: '₪' };
  const european = { ...DEFAULT_FORMATS, decimal: ',' as const, thousands: '.' as const };
  it.each([
    ['1250.00', DEFAULT_FORMATS, '1250.00'],
    ['1,250.00', DEFAULT_FORMATS, null],
    ['1,250.00', shekels, '1250.00'],
    ['₪ 1,250.00', shekels, '1250.00'],
    ['-₪40', shekels, '-40'],
    ['40.00 ₪', shekels, '40.00'],
    ['12,50.00', shekels, null],
    ['1.250,75', european, '1250.75'],
    ['₪40', DEFAULT_FORMATS, null],
  ] as const)('amount %s is %s', (value, formats, expected) => {
    expect(normalAmount(value, formats)).toBe(expected);
  });

  it('refuses a config whose thousands separator is its decimal mark', () => {
    const parsed = csvExpensesConfigSchema.safeParse({ in_dir: '.', thousands: '.' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['thousands']);
  });
});
